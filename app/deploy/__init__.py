"""Take a preset to production: the serving command for vLLM, SGLang or llama.cpp (docs/DESIGN.md §4.2, §4.7)."""

from .build import ENGINES, deploy, deploy_all, unsupported_message
from .spec import Deployment, DraftLength, SavedPlan, read_plan

__all__ = ["ENGINES", "Deployment", "DraftLength", "SavedPlan", "deploy", "deploy_all", "read_plan", "unsupported_message"]

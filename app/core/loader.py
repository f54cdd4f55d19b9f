"""Process-wide model and tokenizer cache, one :class:`ModelCache` per process (``MODEL_CACHE``): a model is loaded
once even if two runs ask for it at the same moment (a lock per key), and least-recently-used models are dropped when
the weights exceed the configured budget (bytes, per device)."""

from __future__ import annotations

import logging
import os
import shutil
import threading
import time
from collections import OrderedDict
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

import torch

from .errors import ArenaError
from .download import HubPlan, plan_file_read, prepare_hub_load
from .hub import hub_error
from .parts import known_params
from .sources import Source, converted_folder, resolve
from .tokenizers import TokenizerPool
from .words import msg

log = logging.getLogger(__name__)

Progress = Callable[[str], None]


#: The share of a device's memory that model weights may take by default (the rest: activations, KV cache, the OS).
MEMORY_SHARE = 0.6


def device_memory_bytes() -> int:
    """Memory of the device models load on: the first GPU's, else this machine's RAM."""
    if torch.cuda.is_available():
        return int(torch.cuda.get_device_properties(0).total_memory)
    return int(os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES"))


def default_memory_budget() -> int:
    """Bytes of model weights kept per device by default: MEMORY_SHARE of :func:`device_memory_bytes`."""
    return int(device_memory_bytes() * MEMORY_SHARE)


def default_device() -> str:
    """'cuda' when a GPU is visible, else 'cpu'."""
    return "cuda" if torch.cuda.is_available() else "cpu"


def _file_read(source: Source, revision: str | None) -> HubPlan:
    """How from_pretrained may read a tokenizer: for a hub source the revision, and the local cache only when the hub
    is unreachable or failing (app/core/download.py)."""
    if source.kind != "hub":
        return HubPlan({})
    plan = plan_file_read(source.path, revision)
    return HubPlan({**plan.kwargs, **({"revision": revision} if revision else {})}, plan.cause)


def _model_kwargs(options: "LoadOptions", device: str, dtype: torch.dtype) -> dict[str, Any]:
    """from_pretrained's arguments for the dtype, quantization and placement `options` ask for on `device`."""
    kwargs: dict[str, Any] = {"dtype": dtype, "trust_remote_code": options.trust_remote_code}
    quant = _quantization_config(options.quantization, device)
    if quant is not None:
        kwargs["quantization_config"] = quant
    if device.startswith("cuda"):
        kwargs["device_map"] = options.device_map
    elif options.device_map not in ("auto", "cpu"):
        raise ArenaError(msg("device_map '{device_map}' needs a GPU; this machine only has a CPU.",
                             device_map=options.device_map))
    return kwargs


def resolve_dtype(name: str, device: str) -> torch.dtype:
    """Map a preset dtype name to a torch dtype ('auto': fp32 on CPU, bf16/fp16 on GPU)."""
    if name == "auto":
        if device.startswith("cuda"):
            return torch.bfloat16 if torch.cuda.is_bf16_supported() else torch.float16
        return torch.float32
    return {"float32": torch.float32, "bfloat16": torch.bfloat16, "float16": torch.float16}[name]


def check_weights_fit(specs: dict[str, str | None], dtype_name: str, max_bytes: int | None) -> None:
    """ArenaError (one line) when the models whose size is known before loading (multi-part package models,
    app/core/parts.py) need more bytes of weights in `dtype_name` than `max_bytes` (the launch's limit: a share link's
    or Space's memory budget). specs: role ('target', 'drafter') -> model spec. Nothing is loaded or read."""
    if max_bytes is None:
        return
    dtype = resolve_dtype(dtype_name, default_device())
    sizes = {role: n * dtype.itemsize for role, spec in specs.items() if (n := known_params(spec))}
    total = sum(sizes.values())
    if total > max_bytes:
        parts = " + ".join(f"{role} {size / 1e9:.1f} GB" for role, size in sizes.items())
        dtype_name = str(dtype).replace("torch.", "")
        raise ArenaError(msg("These models need about {total} GB of weights in {dtype_name} ({parts}); this server allows "
                             "{max_bytes} GB: pick a smaller preset.", total=f"{total / 1e9:.1f}", dtype_name=dtype_name,
                             parts=parts, max_bytes=f"{max_bytes / 1e9:.1f}"))


@dataclass(frozen=True)
class LoadOptions:
    """How to load one model. dtype/quantization/device_map as in the preset; allow_local / trust_remote_code /
    max_model_bytes: the request's limits (core.requests.Limits); revision: the hub revision (branch, tag or commit
    sha; None: main), ignored for other sources."""

    dtype: str = "auto"
    quantization: str = "none"
    device_map: str = "auto"
    allow_local: bool = False
    trust_remote_code: bool = False
    max_model_bytes: int | None = None
    revision: str | None = None
    float32_logits: bool = False


class Float32Logits(torch.nn.Module):
    """An output layer that computes the logits in float32 from a float32 copy of a half-precision head's weights.

    In bfloat16 the logits of a large vocabulary round to steps of about 0.1, so two candidates often tie exactly and
    argmax then depends on the shape of the pass (one token, or a verified draft of several): greedy assisted output
    would drift from plain output at such ties. Seen on Qwen2.5-Coder-1.5B (docs/DESIGN.md §3). The copy is kept
    transposed (hidden x vocab): a row times it runs in 41 ms on two cores for Qwen's 151,936 x 1,536 head, against
    58 ms for ``linear`` on the untransposed copy and 28 ms for the bfloat16 head (python -m benchmarks.head_cost)."""

    def __init__(self, head: torch.nn.Linear):
        super().__init__()
        self.weight_t = torch.nn.Parameter(head.weight.detach().float().t().contiguous(), requires_grad=False)
        self.bias = None if head.bias is None else torch.nn.Parameter(head.bias.detach().float(), requires_grad=False)

    @property
    def weight(self) -> torch.Tensor:
        """The (vocab, hidden) view of the weights, as a Linear's ``weight`` reads."""
        return self.weight_t.t()

    def forward(self, hidden: torch.Tensor) -> torch.Tensor:
        out = hidden.float() @ self.weight_t
        return out if self.bias is None else out + self.bias


def use_float32_logits(model: Any) -> bool:
    """Give a half-precision `model` a :class:`Float32Logits` head; False when it has no plain linear head or is
    already float32."""
    head = model.get_output_embeddings()
    if not isinstance(head, torch.nn.Linear) or head.weight.dtype == torch.float32:
        return False
    model.set_output_embeddings(Float32Logits(head))
    return True


@dataclass
class LoadedModel:
    """A model in the cache with the facts the UI shows about it."""

    spec: str
    model: Any
    source: Source
    device: str
    dtype: str
    n_params: int
    weight_bytes: int
    load_seconds: float


def _quantization_config(kind: str, device: str):
    if kind == "none":
        return None
    if not device.startswith("cuda"):
        raise ArenaError(msg("{kind} quantization needs a CUDA GPU (bitsandbytes); this machine has none. Set quantization: "
                             "none or pick an offline preset.", kind=kind))
    from transformers import BitsAndBytesConfig

    if kind == "8bit":
        return BitsAndBytesConfig(load_in_8bit=True)
    return BitsAndBytesConfig(load_in_4bit=True, bnb_4bit_compute_dtype=torch.bfloat16, bnb_4bit_quant_type="nf4")


_CONVERTED_DTYPES = ("float32", "bfloat16", "float16")


def _write_folder(folder: Path, write: Callable[[Path], Any]) -> None:
    """Fill `folder` by `write`-ing into a temporary folder beside it that is renamed into place when whole, so an
    interrupted conversion leaves nothing that looks finished (two processes may convert at once)."""
    tmp = folder.with_name(folder.name + f".tmp-{os.getpid()}-{threading.get_ident()}")
    shutil.rmtree(tmp, ignore_errors=True)
    tmp.mkdir(parents=True)
    try:
        write(tmp)
        shutil.rmtree(folder, ignore_errors=True)
        tmp.rename(folder)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def _is_converted(folder: Path) -> bool:
    return (folder / "config.json").is_file() and (folder / "tokenizer_config.json").is_file()


def _convert_gguf(source: Source, progress: Progress | None, dtype: torch.dtype = torch.float32) -> Path:
    """Dequantise a GGUF once into `dtype` and keep it as safetensors with its tokenizer; returns the folder.

    The folder is keyed by the file's stem, its version (a multi-part model's checksum) and the dtype, so a model
    raced in bfloat16 loads in seconds from a bfloat16 copy instead of casting a float32 one each time."""
    from transformers import AutoModelForCausalLM, AutoTokenizer

    dtype_name = str(dtype).replace("torch.", "")
    folder = converted_folder(source, dtype_name)
    if _is_converted(folder):
        return folder
    if progress:
        size_mb = (Path(source.path) / (source.gguf_file or "")).stat().st_size / 1e6
        progress(msg("Converting {gguf_file} ({size_mb} MB) to {dtype_name} once (about {seconds} s on two cores); later "
                     "loads take seconds", gguf_file=source.gguf_file, size_mb=f"{size_mb:.0f}", dtype_name=dtype_name,
                     seconds=f"{max(15, round(size_mb / 10, -1)):.0f}"))

    def write(tmp: Path) -> None:
        model = AutoModelForCausalLM.from_pretrained(source.path, gguf_file=source.gguf_file, dtype=dtype)
        tokenizer = AutoTokenizer.from_pretrained(source.path, gguf_file=source.gguf_file)
        # transformers refuses to save a model that remembers its GGUF quantizer; the weights
        # are plain tensors after dequantisation, so drop that marker.
        model.hf_quantizer = None
        if hasattr(model.config, "quantization_config"):
            del model.config.quantization_config
        model.save_pretrained(tmp)
        tokenizer.save_pretrained(tmp)

    _write_folder(folder, write)
    return folder


def local_folder(source: Source, progress: Progress | None = None, dtype: torch.dtype = torch.float32) -> str:
    """The folder or hub id from_pretrained should read for `source` (a GGUF: its converted copy in `dtype`)."""
    return str(_convert_gguf(source, progress, dtype)) if source.kind == "gguf" else source.path


def tokenizer_folder(source: Source, progress: Progress | None = None) -> str:
    """The folder or hub id a tokenizer is read from. For a GGUF: any converted copy of the model (every dtype's copy
    holds the same tokenizer), else a folder with the tokenizer alone, converted once (seconds: a tokenizer asked for
    before its model must not cost a whole float32 conversion)."""
    if source.kind != "gguf":
        return source.path
    for name in _CONVERTED_DTYPES:
        if _is_converted(converted_folder(source, name)):
            return str(converted_folder(source, name))
    folder = converted_folder(source, "tokenizer")
    if not (folder / "tokenizer_config.json").is_file():
        from transformers import AutoTokenizer

        _write_folder(folder, AutoTokenizer.from_pretrained(source.path, gguf_file=source.gguf_file).save_pretrained)
    return str(folder)


def model_size(model: Any) -> tuple[int, int]:
    """(parameter count, bytes of weights and buffers) of a loaded model."""
    params = list(model.parameters())
    n = sum(p.numel() for p in params)
    nbytes = sum(p.numel() * p.element_size() for p in params)
    nbytes += sum(b.numel() * b.element_size() for b in model.buffers())
    return n, nbytes


class ModelCache:
    """Thread-safe LRU cache of loaded models and tokenizers.

    budget_bytes: the most bytes of weights kept per device (None: no limit). The model just
    loaded is never evicted, so a single model larger than the budget still runs.
    """

    def __init__(self, budget_bytes: int | None = None):
        self.budget_bytes = budget_bytes
        self._lock = threading.Lock()
        self._key_locks: dict[tuple, threading.Lock] = {}
        self._models: OrderedDict[tuple, LoadedModel] = OrderedDict()
        self._tokenizers: dict[tuple, TokenizerPool] = {}
        self.load_count = 0

    def _key_lock(self, key: tuple) -> threading.Lock:
        with self._lock:
            return self._key_locks.setdefault(key, threading.Lock())

    def loaded(self) -> list[LoadedModel]:
        """Models currently held, least recently used first."""
        with self._lock:
            return list(self._models.values())

    def clear(self) -> None:
        """Drop every cached model and tokenizer."""
        with self._lock:
            self._models.clear()
            self._tokenizers.clear()

    def get_model(self, spec: str, options: LoadOptions = LoadOptions(), progress: Progress | None = None,
                  stop: threading.Event | None = None) -> LoadedModel:
        """Return the cached model for `spec`, loading it once if needed; `stop` ends a download in progress."""
        source = resolve(spec, allow_local=options.allow_local, progress=progress)
        key = ("model", source.spec, options.revision, options.dtype, options.quantization, options.device_map,
               options.float32_logits)
        with self._key_lock(key):
            with self._lock:
                hit = self._models.get(key)
                if hit is not None:
                    self._models.move_to_end(key)
                    return hit
            entry = self._load_model(source, options, progress, stop)
            with self._lock:
                self._models[key] = entry
                self.load_count += 1
                self._evict(keep=key)
            return entry

    def get_tokenizer(self, spec: str, allow_local: bool = False, progress: Progress | None = None,
                      trust_remote_code: bool = False, revision: str | None = None) -> Any:
        """The cached tokenizer for `spec`, for reading attributes only (encode with a pooled copy)."""
        return self.tokenizer_pool(spec, allow_local, progress, trust_remote_code, revision).original

    def tokenizer_pool(self, spec: str, allow_local: bool = False, progress: Progress | None = None,
                       trust_remote_code: bool = False, revision: str | None = None) -> TokenizerPool:
        """The :class:`TokenizerPool` for `spec` (at a hub `revision`), loading the tokenizer once."""
        source = resolve(spec, allow_local=allow_local, progress=progress)
        key = ("tokenizer", source.spec, revision if source.kind == "hub" else None)
        with self._key_lock(key):
            with self._lock:
                if key in self._tokenizers:
                    return self._tokenizers[key]
            from transformers import AutoTokenizer

            plan = _file_read(source, revision)
            try:
                tok = AutoTokenizer.from_pretrained(tokenizer_folder(source, progress), trust_remote_code=trust_remote_code,
                                                    **plan.kwargs)
            except (OSError, ValueError) as exc:
                if source.kind == "hub":
                    raise hub_error(spec, plan.cause or exc, revision) from None
                raise ArenaError(msg("Could not load a tokenizer from '{spec}': {exc}", spec=spec, exc=exc)) from None
            pool = TokenizerPool(tok)
            with self._lock:
                self._tokenizers[key] = pool
            return pool

    def _load_model(self, source: Source, options: LoadOptions, progress: Progress | None,
                    stop: threading.Event | None = None) -> LoadedModel:
        from transformers import AutoModelForCausalLM

        device = default_device()
        dtype = resolve_dtype(options.dtype, device)
        kwargs = _model_kwargs(options, device, dtype)
        start = time.perf_counter()
        plan = HubPlan({})
        if source.kind == "hub":  # the size cap holds whenever a download can happen (docs/DESIGN.md §4.5)
            plan = prepare_hub_load(source.path, options.revision, options.max_model_bytes, progress, stop)
            kwargs.update(plan.kwargs, **({"revision": options.revision} if options.revision else {}))
        if progress:
            progress(msg("Loading {spec}", spec=source.spec))
        try:
            model = AutoModelForCausalLM.from_pretrained(local_folder(source, progress, dtype), **kwargs)
        except torch.cuda.OutOfMemoryError:
            if torch.cuda.is_available():
                torch.cuda.empty_cache()
            raise ArenaError(msg("Out of GPU memory while loading {spec}: pick a smaller model, 4-bit quantization, or free "
                                 "memory by stopping other runs.", spec=source.spec)) from None
        except (OSError, ValueError) as exc:
            if source.kind == "hub":
                raise hub_error(source.spec, plan.cause or exc, options.revision) from None
            raise ArenaError(msg("Could not load a causal LM from '{spec}': {exc}", spec=source.spec, exc=exc)) from None
        model.eval()
        if options.float32_logits and device == "cpu":
            use_float32_logits(model)
        n, nbytes = model_size(model)
        return LoadedModel(
            spec=source.spec, model=model, source=source, device=str(model.device),
            dtype=str(dtype).replace("torch.", ""), n_params=n, weight_bytes=nbytes,
            load_seconds=time.perf_counter() - start,
        )

    def _evict(self, keep: tuple) -> None:
        if self.budget_bytes is None:
            return
        by_device: dict[str, int] = {}
        for entry in self._models.values():
            by_device[entry.device] = by_device.get(entry.device, 0) + entry.weight_bytes
        for key in list(self._models):
            entry = self._models[key]
            if key == keep or by_device.get(entry.device, 0) <= self.budget_bytes:
                continue
            log.info("Evicting %s (%d MB) to stay under the memory budget", entry.spec, entry.weight_bytes >> 20)
            by_device[entry.device] -= entry.weight_bytes
            del self._models[key]
        if torch.cuda.is_available():
            torch.cuda.empty_cache()


MODEL_CACHE = ModelCache()

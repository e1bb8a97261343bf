"""A PEP 517 build backend for `pip install .` that needs no package from the index.

The extension is built by the project's own CMake (docs/python.md): the `release` preset's
build/ folder when its Python matches the interpreter running pip, else a build folder of its
own configured for that interpreter. The wheel is then written here with zipfile (the format
is PEP 427: the package files, a .dist-info with METADATA, WHEEL and RECORD), so neither
setuptools nor wheel is required; Debian's python3 and a pyenv python both work offline.
"""

import base64
import hashlib
import os
import subprocess
import sys
import sysconfig
import zipfile
from pathlib import Path

NAME = "gpuplan"
VERSION = "0.1.0"
ROOT = Path(__file__).resolve().parents[2]
PURE_FILES = ("__init__.py", "__init__.pyi", "_tables.py", "py.typed")


def _ext_suffix():
    return sysconfig.get_config_var("EXT_SUFFIX") or ".so"


def _run(cmd):
    print("gpuplan_build:", " ".join(str(c) for c in cmd), flush=True)
    subprocess.run([str(c) for c in cmd], check=True, cwd=ROOT)


def _build_extension():
    """Builds the module for this interpreter; returns the folder holding the package."""
    jobs = os.environ.get("GPUPLAN_BUILD_JOBS", str(os.cpu_count() or 2))
    main = ROOT / "build"
    cache = main / "CMakeCache.txt"
    if not cache.exists():
        _run(["cmake", "--preset", "release"])
    package = main / "python" / NAME
    _run(["cmake", "--build", str(main), "--target", "gpuplan_python", "-j", jobs])
    if (package / ("_gpuplan" + _ext_suffix())).exists():
        return package
    # build/ was configured for another Python: a build folder for this one, library and
    # module only.
    tag = sys.implementation.cache_tag
    own = ROOT / ("build-python-" + tag)
    _run(["cmake", "-S", ROOT, "-B", own, "-G", "Ninja", "-DCMAKE_BUILD_TYPE=Release", "-DGPUPLAN_TESTS=OFF",
          "-DGPUPLAN_BENCH=OFF", "-DGPUPLAN_CUDA=OFF", "-DPython_EXECUTABLE=" + sys.executable])
    _run(["cmake", "--build", own, "--target", "gpuplan_python", "-j", jobs])
    package = own / "python" / NAME
    if not (package / ("_gpuplan" + _ext_suffix())).exists():
        raise RuntimeError(f"gpuplan_build: no _gpuplan{_ext_suffix()} in {package} after the build")
    return package


def _tag():
    impl = "cp%d%d" % sys.version_info[:2]
    plat = sysconfig.get_platform().replace("-", "_").replace(".", "_")
    return f"{impl}-{impl}-{plat}"


def _record_line(arcname, data):
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    return f"{arcname},sha256={digest},{len(data)}"


def get_requires_for_build_wheel(config_settings=None):
    return []


def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    package = _build_extension()
    files = {f"{NAME}/{f}": (package / f).read_bytes() for f in PURE_FILES}
    ext = "_gpuplan" + _ext_suffix()
    files[f"{NAME}/{ext}"] = (package / ext).read_bytes()
    dist_info = f"{NAME}-{VERSION}.dist-info"
    files[f"{dist_info}/METADATA"] = (
        f"Metadata-Version: 2.1\nName: {NAME}\nVersion: {VERSION}\n"
        "Summary: Plan GPU training and serving (the gpuplan library, compiled)\n"
    ).encode()
    files[f"{dist_info}/WHEEL"] = (
        f"Wheel-Version: 1.0\nGenerator: gpuplan_build\nRoot-Is-Purelib: false\nTag: {_tag()}\n"
    ).encode()
    record = [_record_line(name, data) for name, data in files.items()] + [f"{dist_info}/RECORD,,"]
    files[f"{dist_info}/RECORD"] = ("\n".join(record) + "\n").encode()
    wheel_name = f"{NAME}-{VERSION}-{_tag()}.whl"
    with zipfile.ZipFile(Path(wheel_directory) / wheel_name, "w", zipfile.ZIP_DEFLATED) as z:
        for name, data in files.items():
            z.writestr(name, data)
    return wheel_name

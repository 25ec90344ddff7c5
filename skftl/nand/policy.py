"""An FTL policy: loading one, and the replay kernel built for it alone.

A policy is a module of hooks (the contract: :mod:`skftl.nand.hooks`): a built-in name
(:data:`BUILTIN`), an importable module name (``my_pkg.my_policy``), a path to a ``.py`` file,
or a module object. :func:`load` fills the hooks it leaves out with the conventional FTL's;
:func:`kernels` builds the replay kernel for that policy alone: the functions of
:mod:`skftl.nand.kernel` bound to the policy's hooks, which Numba inlines, and cached on disk
under the kernel's source tag plus a digest of the policy's file (``skftl.numba_cache``). A
second process loads the cached kernel without compiling; an edit of the policy's file
changes the digest, so the kernel is compiled anew and the stale entries are deleted.
"""

from __future__ import annotations

import functools
import hashlib
import importlib
import importlib.util
import re
import sys
import types
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numba
import numpy as np
from numba.core.registry import CPUDispatcher

from skftl.errors import ConfigError
from skftl.inlining import Helper, inlined
from skftl.nand import hooks, kernel
from skftl.numba_cache import VARIANT_KEY, drop_stale_variants

#: built-in policies: name -> module
BUILTIN = {
    "page": "skftl.nand.hooks",
    "sk-ftl": "skftl.nand.policies_skftl",
    "ppb": "skftl.nand.policies_ppb",
    "ppb_split": "skftl.nand.policies_ppb_split",
    "ppb_sk": "skftl.nand.policies_ppb_sk",
}
DIGEST_CHARS = 12


@dataclass(frozen=True, eq=False)
class Policy:
    """A loaded policy: its name, its module, the hooks namespace the kernel binds (the
    module's hooks, the conventional FTL's for the rest) and the digest of its file."""

    name: str
    source: types.ModuleType
    hooks: types.ModuleType
    digest: str

    @property
    def variant(self) -> str:
        """What tells this policy's cached kernel apart: its name and its file's digest."""
        return f"{re.sub(r'[^0-9A-Za-z]', '_', self.name)[:32]}-{self.digest}"

    @property
    def plane_write_points(self) -> bool:
        """The conventional block choice, which keeps a write point per plane when the
        device programs several planes at once."""
        return self.hooks.select_block is hooks.select_block

    def min_free_lists(self, geometry: Any) -> int:
        f = getattr(self.source, "min_free_lists", None)
        return int(f(geometry)) if f is not None else 1

    def init_state(self, ftl: Any) -> np.ndarray | None:
        f = getattr(self.source, "init_state", None)
        return None if f is None else np.asarray(f(ftl), dtype=np.int64)


def _digest(path: str | None) -> str:
    data = Path(path).read_bytes() if path else b""
    return hashlib.sha256(data).hexdigest()[:DIGEST_CHARS]


def _module(spec: str | Path | types.ModuleType) -> types.ModuleType:
    if isinstance(spec, types.ModuleType):
        return spec
    text = str(spec)
    if text in BUILTIN:
        return importlib.import_module(BUILTIN[text])
    path = Path(text)
    if text.endswith(".py") or path.is_file():
        if not path.is_file():
            raise ConfigError(f"ftl.policy: no policy file {text!r}")
        name = f"skftl_policy_{re.sub(r'[^0-9A-Za-z]', '_', path.stem)}_{_digest(str(path))}"
        if name in sys.modules:
            return sys.modules[name]
        loader_spec = importlib.util.spec_from_file_location(name, path)
        if loader_spec is None or loader_spec.loader is None:
            raise ConfigError(f"ftl.policy: {text!r} is not a Python file")
        module = importlib.util.module_from_spec(loader_spec)
        sys.modules[name] = module
        try:
            loader_spec.loader.exec_module(module)
        except Exception as exc:
            del sys.modules[name]
            raise ConfigError(f"ftl.policy: {text!r} failed to load: {exc}") from exc
        return module
    try:
        return importlib.import_module(text)
    except ImportError as exc:
        raise ConfigError(
            f"ftl.policy: {text!r} is neither a built-in policy ({', '.join(BUILTIN)}), an "
            f"importable module nor a .py file ({exc})"
        ) from exc


@functools.cache
def _load(module: types.ModuleType) -> Policy:
    if module is hooks:
        return Policy("page", hooks, hooks, _digest(hooks.__file__))
    namespace = types.ModuleType(f"{module.__name__}.hooks")
    defined = []
    for name in hooks.HOOKS:
        fn = getattr(module, name, None)
        if fn is None:
            fn = getattr(hooks, name)
        elif not isinstance(fn, CPUDispatcher):
            raise ConfigError(
                f"ftl.policy: hook {name} of {module.__name__} must be a Numba function "
                "(decorate it with skftl.nand.core.inline or njit)"
            )
        else:
            defined.append(name)
        setattr(namespace, name, fn)
    if not defined:
        raise ConfigError(
            f"ftl.policy: {module.__name__} defines none of the hooks {', '.join(hooks.HOOKS)}"
        )
    name = str(getattr(module, "NAME", module.__name__.rsplit(".", 1)[-1]))
    return Policy(name, module, namespace, _digest(getattr(module, "__file__", None)))


def load(spec: str | Path | types.ModuleType | Policy) -> Policy:
    """The policy ``spec`` names (a built-in name, a module name, a ``.py`` path or a
    module); raises a ConfigError naming ``ftl.policy`` when it is none of these."""
    if isinstance(spec, Policy):
        return spec
    return _load(_module(spec))


@functools.cache
def kernels(policy: Policy) -> types.SimpleNamespace:
    """The replay kernel's entry points for ``policy`` (``replay``, ``collect``,
    ``init_free_lists``, ``log_reserve``, ``flash_log_reserve``): :mod:`skftl.nand.kernel`'s
    functions re-bound to the policy's hooks, each cached under its own variant tag."""
    names = ("replay", "collect", "init_free_lists", "log_reserve", "flash_log_reserve")
    if policy.hooks is hooks:  # the module as written: the conventional policy
        return types.SimpleNamespace(**{n: getattr(kernel, n) for n in names})
    drop_stale_variants(kernel.__file__, policy.variant)
    scope = dict(vars(kernel))
    scope["policy"] = policy.hooks
    scope[VARIANT_KEY] = policy.variant
    for name, obj in vars(kernel).items():
        if isinstance(obj, CPUDispatcher) and obj.py_func.__module__ == kernel.__name__:
            f = obj.py_func
            g = types.FunctionType(f.__code__, scope, f.__name__, f.__defaults__, f.__closure__)
            g.__qualname__, g.__module__, g.__doc__ = f.__qualname__, f.__module__, f.__doc__
            options = {k: v for k, v in obj.targetoptions.items() if k != "nopython"}
            rebuild = (
                inlined if isinstance(obj, Helper) else functools.partial(numba.njit, cache=True)
            )
            scope[name] = rebuild(**options)(g)
    return types.SimpleNamespace(**{n: scope[n] for n in names})

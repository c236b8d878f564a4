# ruff: noqa: E501 - expected reports are compared verbatim, long lines included
"""Broken inputs through ``schemac check``: exact position, source line, caret, message.

Each case writes a few small YAML files, runs the CLI in-process and compares
stderr with the expected report.  The expected texts were reviewed by hand
when written; a change to any of them is a change to what users see.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from schemac.cli import main

TAGS = """\
- tag: core
  desc: Core ops.
- tag: pointwise
  desc: Pointwise ops.
"""

#: A valid native_functions.yaml that derivative cases refer to.
GOOD = """\
- func: add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor
  variants: function, method
- func: add.out(Tensor self, Tensor other, *, Scalar alpha=1, Tensor(a!) out) -> Tensor(a!)
- func: neg(Tensor self) -> Tensor
"""

NATIVE = "native_functions.yaml"

CASES = [
    pytest.param(
        {NATIVE: "- func: neg(Tensor self) -> Tensor\n  tags: [core\n"},
        """\
native_functions.yaml:2:9: error: invalid YAML: did not find expected ',' or ']'
    tags: [core
          ^
  hint: while parsing a flow sequence
1 error
""",
        id="yaml-unclosed-flow",
    ),
    pytest.param(
        {NATIVE: "- func: neg(Tensor self) -> Tensor\n\tvariants: method\n"},
        """\
native_functions.yaml:2:1: error: invalid YAML: found a tab character that violates indentation
   variants: method
  ^
  hint: YAML indentation must use spaces, not tabs
1 error
""",
        id="yaml-tab-indent",
    ),
    pytest.param(
        {NATIVE: "- func: neg(Tensor self) -> Tensor\n   variants: method\n  tags: core\n"},
        """\
native_functions.yaml:2:12: error: invalid YAML: mapping values are not allowed in this context
     variants: method
             ^
1 error
""",
        id="yaml-bad-indent",
    ),
    pytest.param(
        {NATIVE: "func: neg(Tensor self) -> Tensor\n"},
        """\
native_functions.yaml:1:1: error: expected a list of native function entries at the top level, got a mapping
  func: neg(Tensor self) -> Tensor
  ^
  hint: each entry starts with '- '
1 error
""",
        id="top-level-mapping",
    ),
    pytest.param(
        {NATIVE: "- func: neg(Tensor self) -> Tensor\n- neg(Tensor self) -> Tensor\n"},
        """\
native_functions.yaml:2:3: error: expected a mapping (key: value lines), got the string 'neg(Tensor self) -> Tensor'
  - neg(Tensor self) -> Tensor
    ^^^^^^^^^^^^^^^^^^^^^^^^^^
  hint: an entry looks like '- func: name(Tensor self) -> Tensor'
1 error
""",
        id="entry-not-mapping",
    ),
    pytest.param(
        {NATIVE: "- variants: method\n  tags: core\n"},
        """\
native_functions.yaml:1:3: error: native function entry has no 'func'
  - variants: method
    ^
  hint: every entry starts with 'func: name(Type arg, ...) -> Return'
1 error
""",
        id="missing-func",
    ),
    pytest.param(
        {NATIVE: "- func: [neg]\n"},
        """\
native_functions.yaml:1:9: error: expected a schema string for 'func', got a list
  - func: [neg]
          ^^^^^
1 error
""",
        id="func-not-string",
    ),
    pytest.param(
        {NATIVE: '- func: neg(Tensor self) -> Tensor\n  structured: "yes"\n'},
        """\
native_functions.yaml:2:15: error: expected True or False for 'structured', got the string 'yes'
    structured: "yes"
                ^^^^^
  hint: write True or False without quotes
1 error
""",
        id="structured-string",
    ),
    pytest.param(
        {NATIVE: "- func: neg(Tensor self) -> Tensor\n  variants: 3\n"},
        """\
native_functions.yaml:2:13: error: expected a string such as 'function, method' for 'variants', got the number 3
    variants: 3
              ^
1 error
""",
        id="variants-number",
    ),
    pytest.param(
        {NATIVE: "- func: neg(Tensor self) -> Tensor\n  variants: function, methd\n"},
        """\
native_functions.yaml:2:23: error: unknown variant 'methd'
    variants: function, methd
                        ^^^^^
  hint: did you mean 'method'?
1 error
""",
        id="variants-unknown",
    ),
    pytest.param(
        {NATIVE: "- func: neg(Tensor self) -> Tensor\n  sturctured: True\n"},
        """\
native_functions.yaml:2:3: error: unknown key 'sturctured' in native function entry
    sturctured: True
    ^^^^^^^^^^
  hint: did you mean 'structured'?
1 error
""",
        id="unknown-key",
    ),
    pytest.param(
        {NATIVE: "- func: neg(Tensor self) -> Tensor\n  variants: method\n  variants: function\n"},
        """\
native_functions.yaml:3:3: error: key 'variants' appears twice in one native function entry
    variants: function
    ^^^^^^^^
  hint: the first 'variants' is on line 2
1 error
""",
        id="key-twice",
    ),
    pytest.param(
        {NATIVE: "- func: neg(Tensor self) -> Tensor\n  tags: [core, pointwize]\n"},
        """\
native_functions.yaml:2:16: error: unknown tag 'pointwize'
    tags: [core, pointwize]
                 ^^^^^^^^^
  hint: did you mean 'pointwise'?
1 error
""",
        id="unknown-tag",
    ),
    pytest.param(
        {NATIVE: "- func: neg(Tensor self) -> Tensor\n  tags: 7\n"},
        """\
native_functions.yaml:2:9: error: expected a list of strings for 'tags', got the number 7
    tags: 7
          ^
1 error
""",
        id="tags-number",
    ),
    pytest.param(
        {NATIVE: "- func: neg(Tensor self) -> Tensor\n  dispatch:\n    CPU, CUDAA: neg_kernel\n"},
        """\
native_functions.yaml:3:10: error: unknown dispatch key 'CUDAA'
      CPU, CUDAA: neg_kernel
           ^^^^^
  hint: did you mean 'CUDA'?
1 error
""",
        id="unknown-dispatch-key",
    ),
    pytest.param(
        {NATIVE: "- func: neg(Tensor self) -> Tensor\n  dispatch: CPU\n"},
        """\
native_functions.yaml:2:13: error: expected a mapping for 'dispatch', got the string 'CPU'
    dispatch: CPU
              ^^^
1 error
""",
        id="dispatch-not-mapping",
    ),
    pytest.param(
        {NATIVE: "- func: neg(Tensor self) -> Tensor\n  dispatch:\n    CPU: [neg_cpu]\n"},
        """\
native_functions.yaml:3:10: error: expected a kernel name, got a list
      CPU: [neg_cpu]
           ^^^^^^^^^
1 error
""",
        id="dispatch-kernel-list",
    ),
    pytest.param(
        {
            NATIVE: "- func: add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor\n  variants: function, method\n- func: add.out(Tensor self, Tensor other, *, Scalar alpha=1, Tensor(a!) out) -> Tensor(a!)\n- func: neg(Tensor self) -> Tensor\n- func: neg(Tensor self) -> Tensor\n"
        },
        """\
native_functions.yaml:5:9: error: operator 'neg' is defined twice
  - func: neg(Tensor self) -> Tensor
          ^^^
  hint: the first definition is on line 4
1 error
""",
        id="duplicate-operator",
    ),
    pytest.param(
        {NATIVE: "- func: 1neg(Tensor self) -> Tensor\n"},
        """\
native_functions.yaml:1:9: error: invalid schema: unexpected '1'
  - func: 1neg(Tensor self) -> Tensor
          ^
  hint: expected a namespace or an operator name
1 error
""",
        id="schema-bad-name",
    ),
    pytest.param(
        {NATIVE: "- func: neg_out(Tensor self) -> Tensor\n"},
        """\
native_functions.yaml:1:9: error: operator name 'neg_out' ends in '_out'
  - func: neg_out(Tensor self) -> Tensor
          ^^^^^^^
  hint: the '_out' suffix is reserved; name the out= variant with an overload, e.g. 'foo.out'
1 error
""",
        id="schema-out-suffix",
    ),
    pytest.param(
        {NATIVE: "- func: neg(Tensr self) -> Tensor\n"},
        """\
native_functions.yaml:1:13: error: unknown type 'Tensr'
  - func: neg(Tensr self) -> Tensor
              ^^^^^
  hint: did you mean 'Tensor'?
1 error
""",
        id="schema-unknown-type",
    ),
    pytest.param(
        {NATIVE: "- func: neg_(Tensor(A!) self) -> Tensor(A!)\n"},
        """\
native_functions.yaml:1:21: error: invalid schema: unexpected 'A'
  - func: neg_(Tensor(A!) self) -> Tensor(A!)
                      ^
  hint: expected an alias set name (a-z)
1 error
""",
        id="schema-bad-annotation",
    ),
    pytest.param(
        {NATIVE: "- func: neg(Tensor self, int(a) n) -> Tensor\n"},
        """\
native_functions.yaml:1:26: error: alias annotation on argument 'n' of type 'int'
  - func: neg(Tensor self, int(a) n) -> Tensor
                           ^^^^^^^^
  hint: only Tensor, Tensor? and Tensor[] arguments can carry an alias annotation
1 error
""",
        id="schema-annotation-on-int",
    ),
    pytest.param(
        {NATIVE: "- func: neg(Tensor self, int n=) -> Tensor\n"},
        """\
native_functions.yaml:1:32: error: invalid schema: unexpected ')'
  - func: neg(Tensor self, int n=) -> Tensor
                                 ^
  hint: expected a list or a name or a number or a string
1 error
""",
        id="schema-empty-default",
    ),
    pytest.param(
        {NATIVE: "- func: neg(Tensor self) -> (Tensor, )\n"},
        """\
native_functions.yaml:1:38: error: invalid schema: unexpected ')'
  - func: neg(Tensor self) -> (Tensor, )
                                       ^
  hint: expected a type
1 error
""",
        id="schema-bad-returns",
    ),
    pytest.param(
        {NATIVE: "- func: neg(Tensor self) Tensor\n"},
        """\
native_functions.yaml:1:25: error: invalid schema: unexpected ' '
  - func: neg(Tensor self) Tensor
                          ^
  hint: a schema needs ' -> ' and a return type, e.g. 'foo(Tensor self) -> Tensor'
1 error
""",
        id="schema-missing-arrow",
    ),
    pytest.param(
        {NATIVE: "- func: add(Tensor self,Tensor other) -> Tensor\n"},
        """\
native_functions.yaml:1:24: error: invalid schema: unexpected ','
  - func: add(Tensor self,Tensor other) -> Tensor
                         ^
  hint: separate arguments and returns with ', ' (a comma and one space)
1 error
""",
        id="schema-no-space-after-comma",
    ),
    pytest.param(
        {NATIVE: "- func: neg_(Tensor self) -> Tensor\n"},
        """\
native_functions.yaml:1:9: error: in-place operator 'neg_' needs a mutable 'self' argument
  - func: neg_(Tensor self) -> Tensor
          ^^^^
  hint: annotate it as Tensor(a!) self
1 error
""",
        id="schema-inplace-immutable-self",
    ),
    pytest.param(
        {NATIVE: '- func: "neg(Tensr self) -> Tensor"\n'},
        """\
native_functions.yaml:1:14: error: unknown type 'Tensr'
  - func: "neg(Tensr self) -> Tensor"
               ^^^^^
  hint: did you mean 'Tensor'?
1 error
""",
        id="schema-quoted",
    ),
    pytest.param(
        {NATIVE: "- func: neg(Tensor self) -> Tensor\n  autogen: neg.out, neg out\n"},
        """\
native_functions.yaml:2:24: error: invalid operator name: unexpected ' '
    autogen: neg.out, neg out
                         ^
  hint: an operator name looks like 'name' or 'name.overload'
1 error
""",
        id="autogen-malformed",
    ),
    pytest.param(
        {NATIVE: "- func: neg(Tensor self) -> Tensor\n  structured_delegate: aten::neg.out\n"},
        """\
native_functions.yaml:2:24: error: 'structured_delegate' cannot name a namespace
    structured_delegate: aten::neg.out
                         ^^^^^^^^^^^^^
  hint: the operator is looked up in the entry's own namespace
1 error
""",
        id="delegate-namespace",
    ),
    pytest.param(
        {NATIVE: "- func: neg(Tensor self) -> Tensor\n  device_check: NoChek\n"},
        """\
native_functions.yaml:2:17: error: unknown device_check 'NoChek'
    device_check: NoChek
                  ^^^^^^
  hint: did you mean 'NoCheck'?
1 error
""",
        id="device-check-unknown",
    ),
    pytest.param(
        {
            NATIVE: "- func: neg(Tensor self, int dim) -> Tensor\n  precomputed:\n  - dim -> int dim\n"
        },
        """\
native_functions.yaml:2:3: error: 'precomputed' requires 'structured: True'
    precomputed:
    ^^^^^^^^^^^
1 error
""",
        id="precomputed-unstructured",
    ),
    pytest.param(
        {
            NATIVE: "- func: neg.out(Tensor self, int dim, *, Tensor(a!) out) -> Tensor(a!)\n  structured: True\n  precomputed:\n  - dim -> int dim, Tensr x\n"
        },
        """\
native_functions.yaml:4:21: error: unknown type 'Tensr'
    - dim -> int dim, Tensr x
                      ^^^^^
  hint: did you mean 'Tensor'?
1 error
""",
        id="precomputed-bad-argument",
    ),
    pytest.param(
        {
            NATIVE: "- func: neg.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)\n  structured: True\n  ufunc_inner_loop:\n    Generic: neg AllAndComplex\n"
        },
        """\
native_functions.yaml:4:14: error: malformed ufunc inner loop 'neg AllAndComplex'
      Generic: neg AllAndComplex
               ^^^^^^^^^^^^^^^^^
  hint: write 'name (Dtype, Dtype, ...)', e.g. 'add (AllAndComplex, BFloat16, Half)'
1 error
""",
        id="ufunc-malformed",
    ),
    pytest.param(
        {NATIVE: "- func: neg(Tensor self) -> Tensor\n  variants: method\n  python_module: nn\n"},
        """\
native_functions.yaml:3:3: error: functions in a python_module cannot be methods
    python_module: nn
    ^^^^^^^^^^^^^
  hint: remove 'method' from 'variants'
1 error
""",
        id="python-module-method",
    ),
    pytest.param(
        {NATIVE: GOOD, "derivatives.yaml": "- name: neg(Tensor input) -> Tensor\n  input: -grad\n"},
        """\
derivatives.yaml:1:9: error: no operator 'neg(Tensor input) -> Tensor' in native_functions.yaml
  - name: neg(Tensor input) -> Tensor
          ^^^^^^^^^^^^^^^^^^^^^^^^^^^
  hint: native_functions.yaml has 'neg(Tensor self) -> Tensor'
1 error
""",
        id="derivative-missing-op",
    ),
    pytest.param(
        {NATIVE: GOOD, "derivatives.yaml": "- name: negg(Tensor self) -> Tensor\n  self: -grad\n"},
        """\
derivatives.yaml:1:9: error: no operator 'negg(Tensor self) -> Tensor' in native_functions.yaml
  - name: negg(Tensor self) -> Tensor
          ^^^^^^^^^^^^^^^^^^^^^^^^^^^
  hint: did you mean 'neg'?
1 error
""",
        id="derivative-unknown-op-name",
    ),
    pytest.param(
        {
            NATIVE: GOOD,
            "derivatives.yaml": "- name: add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor\n  self: grad\n  self, othr: grad\n",
        },
        """\
derivatives.yaml:3:9: error: 'add.Tensor' has no argument or output named 'othr'
    self, othr: grad
          ^^^^
  hint: did you mean 'other'?
1 error
""",
        id="derivative-missing-argument",
    ),
    pytest.param(
        {
            NATIVE: GOOD,
            "derivatives.yaml": "- name: neg(Tensor self) -> Tensor\n  self: -grad\n  result1: -self_t\n",
        },
        """\
derivatives.yaml:3:3: error: 'neg' has 1 output; there is no 'result1'
    result1: -self_t
    ^^^^^^^
  hint: did you mean 'result'?
1 error
""",
        id="derivative-bad-result-index",
    ),
    pytest.param(
        {
            NATIVE: GOOD,
            "derivatives.yaml": "- name: neg(Tensor self) -> Tensor\n  self: -grad\n- name: neg(Tensor self) -> Tensor\n  self: grad.neg()\n",
        },
        """\
derivatives.yaml:3:9: error: derivatives for 'neg(Tensor self) -> Tensor' are defined twice
  - name: neg(Tensor self) -> Tensor
          ^^^^^^^^^^^^^^^^^^^^^^^^^^
  hint: the first definition is on line 1
1 error
""",
        id="derivative-duplicate",
    ),
    pytest.param(
        {
            NATIVE: GOOD,
            "derivatives.yaml": "- name: neg(Tensor self) -> Tensor\n  dispatch:\n    Default:\n      self: -grad\n    AutogradNested:\n      self: -grad\n",
        },
        """\
derivatives.yaml:5:5: error: unknown autograd dispatch key 'AutogradNested'
      AutogradNested:
      ^^^^^^^^^^^^^^
  hint: did you mean 'AutogradNestedTensor'?
1 error
""",
        id="derivative-dispatch-key",
    ),
    pytest.param(
        {NATIVE: GOOD, "derivatives.yaml": "- self: -grad\n"},
        """\
derivatives.yaml:1:3: error: derivative entry has no 'name'
  - self: -grad
    ^
  hint: give the operator's schema, e.g. 'name: foo(Tensor self) -> Tensor'
1 error
""",
        id="derivative-no-name",
    ),
    pytest.param(
        {NATIVE: GOOD, "derivatives.yaml": "- name: neg(Tensor self) -> Tensor\n  self: [grad]\n"},
        """\
derivatives.yaml:2:9: error: expected a formula for 'self', got a list
    self: [grad]
          ^^^^^^
1 error
""",
        id="derivative-formula-not-string",
    ),
    pytest.param(
        {NATIVE: GOOD, "tags.yaml": TAGS + "- tag: core\n  desc: Again.\n"},
        """\
tags.yaml:5:8: error: tag 'core' is defined twice
  - tag: core
         ^^^^
  hint: the first definition is on line 1
1 error
""",
        id="tags-file-duplicate",
    ),
    pytest.param(
        {NATIVE: GOOD, "deprecated.yaml": "- name: neg(Tensor self) -> Tensor\n"},
        """\
deprecated.yaml:1:3: error: deprecated signature has no 'aten'
  - name: neg(Tensor self) -> Tensor
    ^
  hint: an entry looks like '- name: foo(Tensor self) -> Tensor' and '  aten: foo(self)'
1 error
""",
        id="deprecated-missing-aten",
    ),
    pytest.param(
        {},
        """\
native_functions.yaml:1:1: error: no such file: native_functions.yaml
1 error
""",
        id="missing-file",
    ),
    pytest.param(
        {
            NATIVE: "- func: neg(Tensor self) -> Tensor\n  dispatch:\n    CPU: neg_cpu\n"
            "    CUDA, CPU: neg_cuda\n"
        },
        """\
native_functions.yaml:4:11: error: dispatch key 'CPU' is given twice
      CUDA, CPU: neg_cuda
            ^^^
  hint: the first is on line 3
1 error
""",
        id="dispatch-key-twice",
    ),
]


def run_check(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, files: dict[str, str]) -> int:
    """Write the files and run ``schemac check`` on them from their directory."""
    monkeypatch.chdir(tmp_path)
    files = {"tags.yaml": TAGS, **files}
    for name, text in files.items():
        (tmp_path / name).write_text(text, encoding="utf-8")
    argv = ["check", NATIVE, "--tags", "tags.yaml"]
    for option in ("derivatives", "deprecated"):
        if f"{option}.yaml" in files:
            argv += [f"--{option}", f"{option}.yaml"]
    return main(argv)


@pytest.mark.parametrize(("files", "expected"), CASES)
def test_broken_input_is_reported_exactly(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    files: dict[str, str],
    expected: str,
) -> None:
    code = run_check(tmp_path, monkeypatch, files)
    captured = capsys.readouterr()
    assert code == 1
    assert "Traceback" not in captured.err + captured.out
    assert captured.out == ""
    assert captured.err == expected


MANY_MISTAKES = """\
- func: neg(Tensr self) -> Tensor
  variants: methd
- func: abs(Tensor self) -> Tensor
  sturctured: True
  tags: [pointwize]
- func: neg(Tensor self) -> Tensor
  dispatch:
    CPUU: neg_cpu
"""


def test_every_mistake_in_a_file_is_reported_in_one_run_sorted(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    code = run_check(tmp_path, monkeypatch, {NATIVE: MANY_MISTAKES})
    err = capsys.readouterr().err
    headlines = [line for line in err.splitlines() if ": error: " in line]
    assert code == 1
    assert headlines == [
        "native_functions.yaml:1:13: error: unknown type 'Tensr'",
        "native_functions.yaml:2:13: error: unknown variant 'methd'",
        "native_functions.yaml:4:3: error: unknown key 'sturctured' in native function entry",
        "native_functions.yaml:5:10: error: unknown tag 'pointwize'",
        "native_functions.yaml:8:5: error: unknown dispatch key 'CPUU'",
    ]
    assert err.endswith("5 errors\n")


def test_errors_of_several_files_are_reported_together(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    files = {
        NATIVE: GOOD + "  tags: [cor]\n",
        "derivatives.yaml": "- name: neg(Tensor self) -> Tensor\n  slef: -grad\n",
        "deprecated.yaml": "- name: neg(Tensor self) -> Tensr\n  aten: neg(self)\n",
    }
    code = run_check(tmp_path, monkeypatch, files)
    err = capsys.readouterr().err
    headlines = [line.split(": error: ")[0] for line in err.splitlines() if ": error: " in line]
    assert code == 1
    assert headlines == [
        "deprecated.yaml:1:29",
        "derivatives.yaml:2:3",
        "native_functions.yaml:5:10",
    ]


def test_valid_input_passes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    files = {
        NATIVE: GOOD,
        "derivatives.yaml": "- name: neg(Tensor self) -> Tensor\n  self: -grad\n  result: -self_t\n",
    }
    code = run_check(tmp_path, monkeypatch, files)
    captured = capsys.readouterr()
    assert code == 0
    assert captured.err == ""
    assert (
        captured.out == "ok: 3 functions, 2 tags, 1 derivative entries, 0 deprecated signatures\n"
    )


def test_usage_errors_exit_2(capsys: pytest.CaptureFixture[str]) -> None:
    assert main([]) == 2
    assert main(["check"]) == 2
    assert main(["check", "x.yaml", "--bogus"]) == 2
    assert "usage:" in capsys.readouterr().err

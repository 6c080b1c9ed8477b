"""From a model's completion to the code the verifier runs, following the conventions of export's prompt templates
(``kvdata.export.tasks.TEMPLATES``).

What is read:

1. A reasoning block is dropped: everything up to the last ``</think>``. A ``<think>`` that never closes is a
   completion cut off while thinking: nothing to run (``unterminated_think``).
2. Fenced code blocks (CommonMark: a line of 3+ backticks or tildes, any info string such as ``python`` or
   ``cpp``, closed by a line of the same character at least as long). Only complete blocks count; a block still
   open at the end was cut off (``unterminated_block`` when no complete block holds an answer).
3. The answer is the **last complete block that follows the task's convention**: for Triton, it defines
   ``class ModelNew`` (the prompt asks for "a `ModelNew` module that launches it"); for HIP it holds
   ``PYBIND11_MODULE`` (the prompt asks to "Expose it with PYBIND11_MODULE"). Earlier blocks are drafts or
   explanation; a later block that does not follow the convention (a usage example) does not replace the answer.
4. No complete block follows the convention: the whole text is the answer if it does. That is what a model
   fine-tuned on ``kvdata export --format messages`` writes, whose assistant turns are the bare kernel source.
5. Triton code must parse as Python (``ast.parse``; nothing is run here): a syntax error is a compile error,
   found without a trip to the sandbox.

Anything else is a ``ParsedCompletion`` with ``code=None`` and a ``reason`` (one of ``REASONS``): a reward of 0,
never an exception.
"""
from __future__ import annotations

import ast
import re
from dataclasses import dataclass
from typing import Any, Optional

REASONS = ("empty", "not_text", "unterminated_think", "unterminated_block", "no_code_block", "no_modelnew",
           "no_pybind11_module", "syntax_error", "too_long")

_OPEN = re.compile(r"^ {0,3}(`{3,}|~{3,})([^`]*)$")
_MODELNEW = re.compile(r"^\s*class\s+ModelNew\b", re.MULTILINE)
_PYBIND = re.compile(r"\bPYBIND11_MODULE\s*\(")


@dataclass(frozen=True)
class ParsedCompletion:
    """``code``: what the verifier runs (None: nothing usable, ``reason`` says why); ``source``: ``block`` (a fenced
    block, ``blocks`` of them complete in the text) or ``whole`` (the bare text)."""

    code: Optional[str]
    reason: Optional[str] = None
    source: Optional[str] = None
    blocks: int = 0
    detail: str = ""

    @property
    def ok(self) -> bool:
        return self.code is not None


def completion_text(completion: Any) -> Optional[str]:
    """The text of a completion: a string, or a message list (TRL's conversational form: the last assistant
    message, whose content may itself be a list of ``{"type": "text", "text": ...}`` parts), or one message."""
    if isinstance(completion, str):
        return completion
    if isinstance(completion, dict):
        completion = [completion]
    if isinstance(completion, (list, tuple)) and completion:
        messages = [m for m in completion if isinstance(m, dict)]
        answer = [m for m in messages if m.get("role") in (None, "assistant")] or messages
        if not answer:
            return None
        content = answer[-1].get("content")
        if isinstance(content, str):
            return content
        if isinstance(content, (list, tuple)):
            parts = [p.get("text") for p in content if isinstance(p, dict) and isinstance(p.get("text"), str)]
            return "".join(parts) if parts else None
    return None


def fenced_blocks(text: str) -> tuple[list[tuple[str, str]], bool]:
    """Every complete fenced block as ``(info string, body)``, in order, and whether a block was left open (the
    completion was cut off inside it)."""
    blocks, lines, i = [], text.split("\n"), 0
    while i < len(lines):
        m = _OPEN.match(lines[i].rstrip("\r"))
        if not m:
            i += 1
            continue
        fence, info = m.group(1), m.group(2).strip()
        close = re.compile(r"^ {0,3}" + re.escape(fence[0]) + "{" + str(len(fence)) + r",}\s*$")
        for j in range(i + 1, len(lines)):
            if close.match(lines[j].rstrip("\r")):
                blocks.append((info, "\n".join(lines[i + 1:j])))
                i = j + 1
                break
        else:
            return blocks, True             # opened and never closed: cut off; nothing after it is complete
    return blocks, False


def follows_convention(code: str, language: str) -> bool:
    """Triton: defines ``class ModelNew``; HIP: has a ``PYBIND11_MODULE``."""
    if language == "triton":
        return bool(_MODELNEW.search(code))
    return bool(_PYBIND.search(code))


def parse_completion(completion: Any, language: str, max_chars: int = 200_000) -> ParsedCompletion:
    """The code to verify in ``completion`` for a ``language`` task (``triton`` or ``hip``); never raises."""
    text = completion_text(completion)
    if text is None:
        return ParsedCompletion(None, "not_text", detail=f"a completion of type {type(completion).__name__}")
    if "</think>" in text:
        text = text.rsplit("</think>", 1)[1]
    elif "<think>" in text:
        return ParsedCompletion(None, "unterminated_think", detail="a <think> block with no </think>")
    if not text.strip():
        return ParsedCompletion(None, "empty")
    missing = "no_modelnew" if language == "triton" else "no_pybind11_module"
    blocks, cut_off = fenced_blocks(text)
    answers = [body for _, body in blocks if follows_convention(body, language)]
    if answers:
        code, source = answers[-1], "block"
    elif cut_off:
        return ParsedCompletion(None, "unterminated_block", blocks=len(blocks),
                                detail="the completion ends inside a code block (cut off)")
    elif follows_convention(text, language) and not blocks:
        code, source = text, "whole"
    elif blocks:
        return ParsedCompletion(None, missing, blocks=len(blocks),
                                detail=f"{len(blocks)} complete code block(s), none with "
                                       + ("`class ModelNew`" if language == "triton" else "PYBIND11_MODULE"))
    else:
        return ParsedCompletion(None, "no_code_block", detail="no complete fenced code block")
    if len(code) > max_chars:
        return ParsedCompletion(None, "too_long", source=source, blocks=len(blocks),
                                detail=f"{len(code)} characters of code, over {max_chars}")
    if language == "triton":
        try:
            ast.parse(code)
        except SyntaxError as e:
            return ParsedCompletion(None, "syntax_error", source=source, blocks=len(blocks),
                                    detail=f"line {e.lineno}: {e.msg}")
        except (ValueError, MemoryError, RecursionError) as e:     # NUL bytes, absurd nesting
            return ParsedCompletion(None, "syntax_error", source=source, blocks=len(blocks),
                                    detail=f"{type(e).__name__}: {e}"[:200])
    return ParsedCompletion(code, source=source, blocks=len(blocks))

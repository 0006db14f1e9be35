"""The chat format: evaluation prompts are the trainer's prompts (the model's chat-template kwargs and one
BOS), and where the template opens the reasoning in the prompt a completion starts inside it, so a draft
in the reasoning is never graded as the answer."""

from __future__ import annotations

import json

import pytest
import torch
from tokenizers import processors
from transformers import Qwen3Config, Qwen3ForCausalLM

from mcsweep.evaluator import Evaluator
from mcsweep.micro.policy import train_tokenizer
from mcsweep.micro.world import prompt_messages
from mcsweep.train.chat_format import PLAIN, ChatFormat
from mcsweep.train.evaluation import EvalSettings, Sample, grade_samples, sample_completions
from mcsweep.train.reward import ExecutionReward

# A DeepSeek-R1-like template: it writes the BOS itself and opens the reasoning in the generation prompt,
# unless `enable_thinking=False` (then an empty block, closed, as Qwen3's template does).
TEMPLATE = (
    "{{ bos_token }}{% for m in messages %}<|im_start|>{{ m['role'] }}\n{{ m['content'] }}<|im_end|>\n{% endfor %}"
    "{% if add_generation_prompt %}<|im_start|>assistant\n{% if enable_thinking is defined and not enable_thinking %}"
    "<think>\n\n</think>\n\n{% else %}<think>\n{% endif %}{% endif %}"
)
IO = json.dumps({"inputs": ["3\n"], "outputs": ["6\n"]})
RIGHT, WRONG = "```python\nprint(2 * int(input()))\n```\n", "```python\nprint(0)\n```\n"
PROBLEMS = [{"id": f"p{n}", "question": f"Double {n}.", "input_output": IO} for n in range(3)]


@pytest.fixture(scope="module")
def tokenizer():
    """A real byte-level BPE tokenizer whose own encoding adds a BOS, as DeepSeek's does."""
    tok = train_tokenizer([RIGHT, WRONG, "<think>\n</think>\n Double the number."] * 20, vocab_size=320)
    tok.add_special_tokens({"bos_token": "<|bos|>"})
    bos = tok.convert_tokens_to_ids("<|bos|>")
    tok.backend_tokenizer.post_processor = processors.TemplateProcessing(
        single="<|bos|> $A", special_tokens=[("<|bos|>", bos)]
    )
    tok.chat_template = TEMPLATE
    return tok


@pytest.fixture(scope="module")
def evaluator():
    ev = Evaluator(comparator="microcoder", workers=1, timeout_s=2.0)
    yield ev
    ev.close()


def test_a_template_that_opens_the_reasoning_is_recognised(tokenizer):
    assert ChatFormat.of(tokenizer).reasoning_open
    closed = ChatFormat.of(tokenizer, {"enable_thinking": False})
    assert not closed.reasoning_open and closed.kwargs == (("enable_thinking", False),)


def test_prompt_ids_carry_the_kwargs_and_one_bos(tokenizer):
    text = tokenizer.apply_chat_template(prompt_messages(PROBLEMS[0]), tokenize=False, add_generation_prompt=True)
    bos = tokenizer.bos_token_id
    assert tokenizer(text)["input_ids"][:2] == [bos, bos]  # tokenizing the rendered text again: two BOS
    thinking, plain = (ChatFormat.of(tokenizer, kw).prompt_ids(tokenizer, PROBLEMS[:1])[0] for kw in ({}, None))
    assert thinking == plain and thinking[:2] != [bos, bos] and thinking[0] == bos
    closed = ChatFormat.of(tokenizer, {"enable_thinking": False}).prompt_ids(tokenizer, PROBLEMS[:1])[0]
    assert "</think>" in tokenizer.decode(closed) and "</think>" not in tokenizer.decode(thinking)


def tiny_model(tokenizer) -> Qwen3ForCausalLM:
    torch.manual_seed(0)
    config = Qwen3Config(
        vocab_size=len(tokenizer),
        hidden_size=16,
        intermediate_size=32,
        num_hidden_layers=1,
        num_attention_heads=2,
        num_key_value_heads=1,
        head_dim=8,
        eos_token_id=tokenizer.eos_token_id,
        pad_token_id=tokenizer.pad_token_id,
    )
    return Qwen3ForCausalLM(config).eval()


@pytest.mark.parametrize("sampler", ["hf_generate", "fast"])
def test_evaluation_samples_from_the_prompts_the_trainer_renders(tokenizer, sampler):
    """The held-out evaluation used to render prompts without the model's chat-template kwargs (Qwen3-1.7B's
    `enable_thinking: false`): its test prompts were not the ones the policy trained on."""
    model = tiny_model(tokenizer)
    seen: list[list[int]] = []

    def record(_module, args, kwargs):
        ids, mask = kwargs.get("input_ids", args[0] if args else None), kwargs.get("attention_mask")
        if not seen and ids is not None:
            rows = ids.tolist() if mask is None else [r[m.bool()].tolist() for r, m in zip(ids, mask, strict=True)]
            seen.extend(rows)

    model.base_model.register_forward_pre_hook(record, with_kwargs=True)  # both samplers call it
    chat = ChatFormat.of(tokenizer, {"enable_thinking": False})
    settings = EvalSettings(1, 1.0, (4,), sampler=sampler, chat=chat)
    sample_completions(model, tokenizer, PROBLEMS[:2], settings)
    assert seen == chat.prompt_ids(tokenizer, PROBLEMS[:2])


def test_generate_is_told_that_processes_need_not_decode_in_step(tokenizer):
    """Left unsaid, transformers turns `synced_gpus` on under ZeRO-3 although the evaluation gathers the
    weights; a process with fewer batches then waited in `gather_object` while the others' decode steps
    waited for it (a hang at the first evaluation of an 8-GPU run). Only FSDP's lockstep asks for it."""
    model = tiny_model(tokenizer)
    asked: list[object] = []
    generate = model.generate
    model.generate = lambda **kwargs: asked.append(kwargs.get("synced_gpus", "unsaid")) or generate(**kwargs)
    sample_completions(model, tokenizer, PROBLEMS[:1], EvalSettings(1, 1.0, (2,)))
    assert asked == [False]


def test_the_reward_grades_no_draft_from_a_reasoning_the_prompt_opened(tokenizer, evaluator):
    cut_mid_thought = f"Try this:\n{RIGHT}and check it against"
    answered = f"Draft:\n{WRONG}</think>\n{RIGHT}"
    completions = [[{"role": "assistant", "content": c}] for c in (cut_mid_thought, answered)]
    columns = {"prompts": [None] * 2, "input_output": [IO] * 2, "problem_id": ["p0", "p1"]}
    opened = ExecutionReward(evaluator, ChatFormat.of(tokenizer))
    assert opened(completions=completions, **columns) == [0.0, 1.0]
    assert opened.last.verdicts[0] == "no_code"
    # A template that leaves nothing open: the completion is its own answer, the draft is graded.
    assert ExecutionReward(evaluator, PLAIN)(completions=completions, **columns) == [1.0, 1.0]


def test_held_out_grading_reads_completions_inside_an_opened_reasoning(tokenizer, evaluator):
    eos = tokenizer.eos_token_id
    texts = [f"Try this:\n{RIGHT}", f"So:\n</think>\n{RIGHT}"]
    samples = [
        Sample(PROBLEMS[0], i, [*tokenizer(t, add_special_tokens=False)["input_ids"], eos]) for i, t in enumerate(texts)
    ]
    chat = ChatFormat.of(tokenizer)
    rows = grade_samples(samples, EvalSettings(2, 1.0, (200,), chat=chat), tokenizer, evaluator, 0, [eos])
    assert [r["passed"] for r in rows] == [False, True]
    rows = grade_samples(samples, EvalSettings(2, 1.0, (200,)), tokenizer, evaluator, 0, [eos])
    assert [r["passed"] for r in rows] == [True, True]


def test_a_stray_close_tag_drops_no_answer_where_the_prompt_left_no_reasoning_open(tokenizer, evaluator):
    """The judge takes a `</think>` before any `<think>` for the end of a reasoning the prompt opened. Where the
    prompt opened none (or closed it: `enable_thinking: false`), a stray one after the answer made the whole
    answer reasoning: a wrong one was `no_code`, which the truncation mask spares as never given, and a right
    one lost its reward (a red-team round, 2026-12-06)."""
    completions = [f"{WRONG}</think>\nLet me also explain", f"{RIGHT}</think>\n"]
    columns = {"prompts": [None] * 2, "input_output": [IO] * 2, "problem_id": ["p0", "p1"]}
    for chat in (PLAIN, ChatFormat.of(tokenizer, {"enable_thinking": False})):
        reward = ExecutionReward(evaluator, chat)
        assert reward(completions=completions, **columns) == [0.0, 1.0]
        assert reward.last.verdicts == ["wrong_answer", "accepted"]

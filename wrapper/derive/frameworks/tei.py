"""Hugging Face text-embeddings-inference (TEI): each request's ``Success`` line, ``embed{total_time="685.1ms"
tokenization_time="8.8ms" queue_time="724.3µs" inference_time="675.5ms"}: … Success`` (also ``openai_embed``,
``rerank``, …) -> one dict: ``total_ms``, ``extra.tokenization_ms``, ``extra.queue_ms``, ``extra.inference_ms``.

TGI prints the same span shape; a ``tokenization_time`` field (TGI has ``validation_time``) or the router's name
``text_embeddings_router`` says the log is TEI's.
"""
from __future__ import annotations

from .rules import GO_MS, RulesParser, rule

NAME = "text-embeddings-inference"

RULES = (
    rule('total_time="', r'\btotal_time="([^"]+)"', ("total_ms", GO_MS), claims=False),
    rule('tokenization_time="', r'\btokenization_time="([^"]+)"', ("extra.tokenization_ms", GO_MS)),
    rule('queue_time="', r'\bqueue_time="([^"]+)"', ("extra.queue_ms", GO_MS), claims=False),
    rule('inference_time="', r'\binference_time="([^"]+)"', ("extra.inference_ms", GO_MS), claims=False,
         end=True),
)


class Parser(RulesParser):
    NAME = NAME
    RULES = RULES

"""One async OpenAI-compatible client: limits, timeouts, retries, usage, optional cache."""

from judgeaudit.llm.client import LLMClient, LLMError
from judgeaudit.llm.reply import CallResult

__all__ = ["CallResult", "LLMClient", "LLMError"]

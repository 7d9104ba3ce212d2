"""One async OpenAI-compatible client: limits, timeouts, retries, usage, optional cache."""

from judgeaudit.llm.client import CallResult, LLMClient, LLMError

__all__ = ["CallResult", "LLMClient", "LLMError"]

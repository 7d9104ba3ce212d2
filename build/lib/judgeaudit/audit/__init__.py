"""The audit engine: tasks, conversations, the judge, success checks, the store and the runner."""

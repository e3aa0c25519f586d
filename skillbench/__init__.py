"""skillbench: measure how well LLMs execute customer-support skills."""

__version__ = "0.1.0"

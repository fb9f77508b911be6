"""The ``ask:`` section of the settings: domain routing and question answering."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict


class AskConfig(BaseModel):
    model_config = ConfigDict(extra="forbid")

"""The MCP results we send, as msgspec Structs (camelCase on the wire).

Fields a revision lacks stay UNSET and so never reach the wire: one Struct
serves every revision we speak.
"""

from __future__ import annotations

from typing import Any, Literal

import msgspec
from msgspec import UNSET, Struct, UnsetType


class Result(Struct, kw_only=True, omit_defaults=True, rename="camel"):
    """What every 2026-07-28 result adds; both stay UNSET in the handshake era."""

    result_type: Literal["complete"] | UnsetType = UNSET
    meta: dict[str, Any] | UnsetType = msgspec.field(default=UNSET, name="_meta")


class CacheableResult(Result, kw_only=True):
    """2026-07-28 requires cache hints on discover and the list results."""

    ttl_ms: int | UnsetType = UNSET
    cache_scope: Literal["public", "private"] | UnsetType = UNSET


class EmptyResult(Result, kw_only=True):
    pass


class Implementation(Struct, kw_only=True, omit_defaults=True, rename="camel"):
    name: str
    version: str
    title: str | UnsetType = UNSET


class InitializeResult(Result, kw_only=True):
    protocol_version: str
    capabilities: dict[str, Any]
    server_info: Implementation
    instructions: str


class DiscoverResult(CacheableResult, kw_only=True):
    supported_versions: list[str]
    capabilities: dict[str, Any]
    instructions: str


class ToolAnnotations(Struct, kw_only=True, rename="camel"):
    read_only_hint: bool
    destructive_hint: bool
    idempotent_hint: bool
    open_world_hint: bool


class ToolDefinition(Struct, kw_only=True, omit_defaults=True, rename="camel"):
    name: str
    description: str
    input_schema: dict[str, Any]
    title: str | UnsetType = UNSET
    output_schema: dict[str, Any] | UnsetType = UNSET
    annotations: ToolAnnotations | UnsetType = UNSET


class ListToolsResult(CacheableResult, kw_only=True):
    tools: list[ToolDefinition]


class PromptArgument(Struct, kw_only=True):
    name: str
    description: str
    required: bool = False


class Prompt(Struct, kw_only=True, omit_defaults=True):
    name: str
    description: str
    arguments: list[PromptArgument]
    title: str | UnsetType = UNSET


class ListPromptsResult(CacheableResult, kw_only=True):
    prompts: list[Prompt]


class TextContent(Struct, kw_only=True):
    type: Literal["text"] = "text"  # no omit_defaults here: the tag must always be sent
    text: str


class PromptMessage(Struct, kw_only=True):
    role: Literal["user", "assistant"]
    content: TextContent


class GetPromptResult(Result, kw_only=True):
    description: str
    messages: list[PromptMessage]


class CallToolResult(Result, kw_only=True):
    content: list[TextContent]
    # msgspec.Raw: the daemon's result bytes go out as they came, not decoded and re-encoded.
    structured_content: msgspec.Raw | UnsetType = UNSET
    is_error: bool = False


# --- resources ---------------------------------------------------------------------------


class ResourceAnnotations(Struct, kw_only=True, omit_defaults=True, rename="camel"):
    audience: list[Literal["user", "assistant"]] | UnsetType = UNSET
    priority: float | UnsetType = UNSET
    last_modified: str | UnsetType = UNSET


class Resource(Struct, kw_only=True, omit_defaults=True, rename="camel"):
    uri: str
    name: str
    title: str | UnsetType = UNSET
    description: str | UnsetType = UNSET
    mime_type: str | UnsetType = UNSET
    annotations: ResourceAnnotations | UnsetType = UNSET


class ResourceTemplate(Struct, kw_only=True, omit_defaults=True, rename="camel"):
    uri_template: str
    name: str
    title: str | UnsetType = UNSET
    description: str | UnsetType = UNSET
    mime_type: str | UnsetType = UNSET


class TextResourceContents(Struct, kw_only=True, rename="camel"):
    uri: str
    mime_type: str
    text: str


class ListResourcesResult(CacheableResult, kw_only=True):
    resources: list[Resource]
    next_cursor: str | UnsetType = UNSET


class ListResourceTemplatesResult(CacheableResult, kw_only=True):
    resource_templates: list[ResourceTemplate]


class ReadResourceResult(CacheableResult, kw_only=True):
    contents: list[TextResourceContents]

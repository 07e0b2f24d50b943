"""The campaigns app's part of "my data": memberships, posts (with their earlier texts) and rolls."""

from __future__ import annotations

from typing import Any

from campaigns.models import Membership, Post, PostVersion, Roll
from config.exporters import rows


def export_user_data(user: Any) -> dict[str, Any]:
    memberships = rows(Membership.objects.filter(user=user), "campaign__slug", "campaign__title", "role", "joined")
    posts = rows(
        Post.objects.filter(author=user).order_by("created", "id"),
        "id", "campaign__slug", "thread__title", "number", "visibility", "body", "created", "edited", "hidden",
    )  # fmt: skip
    versions: dict[int, list[dict[str, Any]]] = {}
    for row in rows(PostVersion.objects.filter(post__author=user).order_by("id"), "post_id", "body", "created"):
        versions.setdefault(row.pop("post_id"), []).append(row)
    for post in posts:
        post["previous_versions"] = versions.get(post["id"], [])
    rolls = rows(
        Roll.objects.filter(roller=user).order_by("campaign_id", "sequence"),
        "campaign__slug", "sequence", "post_id", "kind", "system", "label", "request", "resolution", "secret",
        "created", "hash",
    )  # fmt: skip
    return {"memberships": memberships, "posts": posts, "rolls": rolls}

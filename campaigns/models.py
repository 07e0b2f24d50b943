"""Campaigns, their members, the forum (boards, threads, posts), rolls and
play sessions.

Visibility and permissions are decided in :mod:`campaigns.access`; writes go
through :mod:`campaigns.services`.
"""

from __future__ import annotations

from django.conf import settings
from django.contrib.postgres.search import SearchVectorField
from django.db import models
from django.utils.translation import gettext_lazy as _

import rules
from config.history import AppendOnlyModel
from config.history import ImmutableRecordError as ImmutableRecordError  # re-exported: callers import it here


def system_choices() -> list[tuple[str, str]]:
    return rules.system_choices("fr")


class Campaign(models.Model):
    """A table (*table*, *campagne*) run by a GM in one rule system."""

    title = models.CharField(_("title"), max_length=120)
    slug = models.SlugField(_("slug"), max_length=140, unique=True)
    pitch = models.TextField(_("pitch"), blank=True, max_length=5000)
    system = models.CharField(_("rule system"), max_length=40, choices=system_choices)
    system_settings = models.JSONField(_("system options"), default=dict, blank=True)
    is_public = models.BooleanField(_("public"), default=True)
    recruiting = models.BooleanField(_("recruiting"), default=False)
    language = models.CharField(_("language"), max_length=8, choices=settings.LANGUAGES, default="fr")
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, related_name="+")
    created = models.DateTimeField(auto_now_add=True)
    locked = models.BooleanField(_("locked"), default=False)
    invite_token = models.CharField(max_length=40, blank=True, db_index=True)

    class Meta:
        ordering = ["-created"]
        verbose_name = _("campaign")
        verbose_name_plural = _("campaigns")
        permissions = [("moderate", "Can moderate any campaign")]

    def __str__(self) -> str:
        return self.title

    @property
    def rule_system(self) -> rules.base.RuleSystem:
        return rules.get_system(self.system)


class Role(models.TextChoices):
    GM = "gm", _("GM")
    COGM = "cogm", _("co-GM")
    PLAYER = "player", _("player")
    SPECTATOR = "spectator", _("spectator")


class Membership(models.Model):
    """A user's role in a campaign (one row per user and campaign)."""

    campaign = models.ForeignKey(Campaign, on_delete=models.CASCADE, related_name="memberships")
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="memberships")
    role = models.CharField(_("role"), max_length=12, choices=Role.choices)
    joined = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["campaign", "user"], name="membership_unique_user"),
            models.UniqueConstraint(fields=["campaign"], condition=models.Q(role="gm"), name="membership_one_gm"),
        ]
        verbose_name = _("membership")
        verbose_name_plural = _("memberships")

    def __str__(self) -> str:
        return f"{self.user} ({self.role}) in {self.campaign}"


class Board(models.Model):
    """A forum section of a campaign (*section*): in-character, out-of-character..."""

    class Kind(models.TextChoices):
        IN_CHARACTER = "ic", _("in character")
        OUT_OF_CHARACTER = "ooc", _("out of character")
        META = "meta", _("rules and organisation")
        OTHER = "other", _("other")

    campaign = models.ForeignKey(Campaign, on_delete=models.CASCADE, related_name="boards")
    name = models.CharField(_("name"), max_length=80)
    kind = models.CharField(_("kind"), max_length=8, choices=Kind.choices, default=Kind.OTHER)
    position = models.PositiveIntegerField(default=0)

    class Meta:
        ordering = ["position", "id"]
        verbose_name = _("board")
        verbose_name_plural = _("boards")

    def __str__(self) -> str:
        return self.name


class Thread(models.Model):
    """A thread (*sujet*, a scene in play)."""

    board = models.ForeignKey(Board, on_delete=models.CASCADE, related_name="threads")
    campaign = models.ForeignKey(Campaign, on_delete=models.CASCADE, related_name="threads")
    title = models.CharField(_("title"), max_length=160)
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, related_name="+")
    created = models.DateTimeField(auto_now_add=True)
    sticky = models.BooleanField(_("sticky"), default=False)
    locked = models.BooleanField(_("locked"), default=False)
    post_count = models.PositiveIntegerField(default=0)
    last_post_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-sticky", "-last_post_at", "-id"]
        indexes = [models.Index(fields=["board", "-sticky", "-last_post_at"], name="thread_board_order")]
        verbose_name = _("thread")
        verbose_name_plural = _("threads")

    def __str__(self) -> str:
        return self.title


class PlaySession(models.Model):
    """A play session (*séance*): posts and rolls made while open belong to it."""

    class Status(models.TextChoices):
        OPEN = "open", _("open")
        CLOSED = "closed", _("closed")

    campaign = models.ForeignKey(Campaign, on_delete=models.CASCADE, related_name="play_sessions")
    number = models.PositiveIntegerField()
    title = models.CharField(_("title"), max_length=120, blank=True)
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.OPEN)
    opened_at = models.DateTimeField(auto_now_add=True)
    closed_at = models.DateTimeField(null=True, blank=True)
    opened_by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, related_name="+")

    class Meta:
        ordering = ["-number"]
        constraints = [
            models.UniqueConstraint(fields=["campaign", "number"], name="session_unique_number"),
            models.UniqueConstraint(fields=["campaign"], condition=models.Q(status="open"), name="session_one_open"),
        ]
        verbose_name = _("play session")
        verbose_name_plural = _("play sessions")

    def __str__(self) -> str:
        return f"{self.campaign} #{self.number}"


class Post(models.Model):
    """A message in a thread (*message*).

    ``number`` is the post's position in its thread (1, 2, ...), unique per
    thread, so pages are fetched by a range of numbers (fast on threads of
    thousands of posts).
    """

    class Visibility(models.TextChoices):
        PUBLIC = "public", _("all members")
        GM_ONLY = "gm", _("GM only")
        WHISPER = "whisper", _("whisper")

    thread = models.ForeignKey(Thread, on_delete=models.CASCADE, related_name="posts")
    campaign = models.ForeignKey(Campaign, on_delete=models.CASCADE, related_name="posts")
    number = models.PositiveIntegerField()
    author = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, related_name="posts")
    character = models.ForeignKey(
        "characters.Character", on_delete=models.SET_NULL, null=True, blank=True, related_name="posts"
    )
    visibility = models.CharField(max_length=10, choices=Visibility.choices, default=Visibility.PUBLIC)
    recipients = models.ManyToManyField(settings.AUTH_USER_MODEL, blank=True, related_name="whispers")
    body = models.TextField(_("text"))
    body_html = models.TextField(blank=True)
    reply_to = models.ForeignKey("self", on_delete=models.SET_NULL, null=True, blank=True, related_name="+")
    session = models.ForeignKey(PlaySession, on_delete=models.SET_NULL, null=True, blank=True, related_name="posts")
    created = models.DateTimeField(auto_now_add=True)
    edited = models.DateTimeField(null=True, blank=True)
    hidden = models.BooleanField(default=False)
    hidden_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    hidden_reason = models.CharField(max_length=300, blank=True)
    #: Posted by a GM on behalf of the system (e.g. a combat round summary).
    is_system = models.BooleanField(default=False)
    #: PostgreSQL full-text vector (French + English); unused on SQLite.
    search_vector = SearchVectorField(null=True, blank=True, editable=False)

    class Meta:
        ordering = ["thread", "number"]
        constraints = [models.UniqueConstraint(fields=["thread", "number"], name="post_unique_number")]
        verbose_name = _("post")
        verbose_name_plural = _("posts")

    def __str__(self) -> str:
        return f"{self.thread} #{self.number}"


class PostVersion(AppendOnlyModel):
    """A previous text of an edited post (append-only history)."""

    edit_refused = "A post version is never edited."
    delete_refused = "A post version is never deleted."

    post = models.ForeignKey(Post, on_delete=models.CASCADE, related_name="versions")
    body = models.TextField()
    edited_by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, related_name="+")
    created = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["post", "id"]
        verbose_name = _("post version")
        verbose_name_plural = _("post versions")

    def __str__(self) -> str:
        return f"{self.post} v{self.pk}"


class RollSeed(models.Model):
    """A committed server seed of a campaign's dice (see ``rules.fair``).

    ``commitment`` (SHA-256 of the seed) is public from the moment the row exists; ``seed``
    stays secret until ``revealed_at`` (rotation at a session's close or on a GM's request),
    when anyone can recompute every roll drawn from it. Index 1 is the campaign's first seed.
    """

    campaign = models.ForeignKey(Campaign, on_delete=models.PROTECT, related_name="roll_seeds")
    index = models.PositiveIntegerField()
    seed = models.CharField(max_length=64)
    commitment = models.CharField(max_length=64)
    created = models.DateTimeField(auto_now_add=True)
    revealed_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["campaign", "index"]
        constraints = [models.UniqueConstraint(fields=["campaign", "index"], name="rollseed_unique_index")]

    def __str__(self) -> str:
        return f"{self.campaign} seed #{self.index}"


class Roll(AppendOnlyModel):
    """A dice roll or system test (*jet*): immutable, hash-chained per campaign.

    ``request`` holds the validated inputs, ``resolution`` the rules engine's
    :class:`rules.base.Resolution` (raw draws in order, outcome). ``prev_hash``
    and ``hash`` chain the campaign's rolls by ``sequence``: altering or
    removing any roll breaks the chain (see ``campaigns.dice.verify_chain``).
    """

    edit_refused = "A roll is never edited."
    delete_refused = "A roll is never deleted."

    campaign = models.ForeignKey(Campaign, on_delete=models.PROTECT, related_name="rolls")
    sequence = models.PositiveIntegerField()
    post = models.ForeignKey(Post, on_delete=models.PROTECT, null=True, blank=True, related_name="rolls")
    session = models.ForeignKey(PlaySession, on_delete=models.PROTECT, null=True, blank=True, related_name="rolls")
    roller = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, related_name="+")
    character = models.ForeignKey(
        "characters.Character", on_delete=models.SET_NULL, null=True, blank=True, related_name="rolls"
    )
    kind = models.CharField(max_length=20)  # "expression" or "system"
    system = models.CharField(max_length=40, blank=True)
    label = models.CharField(max_length=200, blank=True)
    request = models.JSONField(default=dict)
    resolution = models.JSONField(default=dict)
    secret = models.BooleanField(default=False)
    created = models.DateTimeField()
    prev_hash = models.CharField(max_length=64)
    hash = models.CharField(max_length=64)
    #: Random salt mixed into the content digest, so a published digest of a
    #: secret roll cannot be brute-forced back to its dice.
    salt = models.CharField(max_length=32, blank=True, default="")
    #: The fairness proof (``campaigns.dice``): seed index and commitment, nonce and who gave it,
    #: request digest and every draw ``[a, b, value]``; or ``{"derived_from": n}`` for a roll that
    #: re-reads the dice of roll n. Hashed into the chain. Empty for rolls made before it existed.
    fair = models.JSONField(default=dict, blank=True)
    roll_seed = models.ForeignKey(RollSeed, on_delete=models.PROTECT, null=True, blank=True, related_name="rolls")

    class Meta:
        ordering = ["campaign", "sequence"]
        constraints = [models.UniqueConstraint(fields=["campaign", "sequence"], name="roll_unique_sequence")]
        verbose_name = _("roll")
        verbose_name_plural = _("rolls")

    def __str__(self) -> str:
        return f"{self.campaign} roll #{self.sequence}"


class ThreadRead(models.Model):
    """How far a member has read a thread (*lu jusqu'au message n°*)."""

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    thread = models.ForeignKey(Thread, on_delete=models.CASCADE, related_name="reads")
    last_read_number = models.PositiveIntegerField(default=0)
    updated = models.DateTimeField(auto_now=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["user", "thread"], name="threadread_unique")]

    def __str__(self) -> str:
        return f"{self.user} read {self.thread} up to {self.last_read_number}"


class Invitation(models.Model):
    """An invitation of a member by username (*invitation*)."""

    class Status(models.TextChoices):
        PENDING = "pending", _("pending")
        ACCEPTED = "accepted", _("accepted")
        DECLINED = "declined", _("declined")
        CANCELLED = "cancelled", _("cancelled")

    campaign = models.ForeignKey(Campaign, on_delete=models.CASCADE, related_name="invitations")
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="campaign_invitations")
    role = models.CharField(_("role"), max_length=12, choices=Role.choices, default=Role.PLAYER)
    invited_by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, related_name="+")
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.PENDING)
    created = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created"]
        constraints = [
            models.UniqueConstraint(
                fields=["campaign", "user"], condition=models.Q(status="pending"), name="invitation_one_pending"
            )
        ]

    def __str__(self) -> str:
        return f"{self.user} invited to {self.campaign}"


class JoinRequest(models.Model):
    """A member asks to join a recruiting campaign (*demande d'inscription*)."""

    class Status(models.TextChoices):
        PENDING = "pending", _("pending")
        ACCEPTED = "accepted", _("accepted")
        REFUSED = "refused", _("refused")
        WITHDRAWN = "withdrawn", _("withdrawn")

    campaign = models.ForeignKey(Campaign, on_delete=models.CASCADE, related_name="join_requests")
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="join_requests")
    message = models.TextField(_("message"), blank=True, max_length=2000)
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.PENDING)
    created = models.DateTimeField(auto_now_add=True)
    decided_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    decided_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created"]
        constraints = [
            models.UniqueConstraint(
                fields=["campaign", "user"], condition=models.Q(status="pending"), name="joinrequest_one_pending"
            )
        ]

    def __str__(self) -> str:
        return f"{self.user} asks to join {self.campaign}"


class Notification(models.Model):
    """A header notification (*notification*): mention, reply, whisper, turn."""

    class Kind(models.TextChoices):
        MENTION = "mention", _("mention")
        REPLY = "reply", _("reply")
        WHISPER = "whisper", _("whisper")
        TURN = "turn", _("your turn")
        INVITATION = "invitation", _("invitation")
        JOIN_REQUEST = "join", _("join request")
        # Every step of the play loop (see ``rhythm.kinds``).
        SHEET_SUBMITTED = "sheet_submitted", _("character sheet submitted")
        SHEET_RETURNED = "sheet_returned", _("character sheet returned")
        SHEET_APPROVED = "sheet_approved", _("character sheet approved")
        CHANGE_OPENED = "change_opened", _("change request opened")
        CHANGE_DECIDED = "change_decided", _("change request decided")
        PURCHASE_REQUESTED = "purchase_requested", _("purchase requested")
        PURCHASE_DECIDED = "purchase_decided", _("purchase decided")
        AWARD_CONFIRMED = "award_confirmed", _("award confirmed")
        SESSION_OPENED = "session_opened", _("play session opened")
        SESSION_CLOSED = "session_closed", _("play session closed")
        GM_ONLY_POST = "gm_only_post", _("GM-only post")
        REACTION = "reaction", _("reaction needed")
        NUDGE = "nudge", _("reminder")

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="notifications")
    kind = models.CharField(max_length=30, choices=Kind.choices)
    #: Where the notification leads when it has no post (a sheet, a change request...).
    url = models.CharField(max_length=300, blank=True, default="")
    campaign = models.ForeignKey(Campaign, on_delete=models.CASCADE, related_name="+")
    thread = models.ForeignKey(Thread, on_delete=models.CASCADE, null=True, blank=True, related_name="+")
    post = models.ForeignKey(Post, on_delete=models.CASCADE, null=True, blank=True, related_name="+")
    actor = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, related_name="+")
    text = models.CharField(max_length=300, blank=True)
    created = models.DateTimeField(auto_now_add=True)
    read_at = models.DateTimeField(null=True, blank=True)
    emailed_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created", "-id"]
        indexes = [models.Index(fields=["user", "read_at"], name="notification_user_unread")]

    def __str__(self) -> str:
        return f"{self.kind} for {self.user}"


class NotificationSettings(models.Model):
    """A member's e-mail digest choice (*résumé par e-mail*)."""

    user = models.OneToOneField(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    email_digest = models.BooleanField(_("e-mail digest of unread notifications"), default=False)
    last_digest_at = models.DateTimeField(null=True, blank=True)

    def __str__(self) -> str:
        return f"{self.user} digest={self.email_digest}"

"""Every write of the campaigns app, one function each (Zulip "actions" style).

Each function checks permissions (``Http404`` for what the actor may not see,
``PermissionDenied`` for a visible but forbidden write, ``ValidationError``
with a dict of field errors for bad input), writes inside
``transaction.atomic()`` and publishes live events inside that transaction
(they go out on commit). Views and API views stay thin and call these.
"""

from __future__ import annotations

import secrets
from collections.abc import Iterable, Sequence
from typing import Any

from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.exceptions import PermissionDenied, ValidationError
from django.db import IntegrityError, transaction
from django.db.models import F
from django.http import Http404
from django.utils import timezone
from django.utils.text import slugify
from django.utils.translation import get_language, gettext_noop, override
from django.utils.translation import gettext as _

import rules
from campaigns import access, dice, markup
from campaigns.models import (
    Board,
    Campaign,
    Invitation,
    JoinRequest,
    Membership,
    Notification,
    NotificationSettings,
    PlaySession,
    Post,
    PostVersion,
    Role,
    Roll,
    Thread,
    ThreadRead,
)
from campaigns.play import sheet_test_characters
from campaigns.signals import session_closed
from config.ratelimit import RateLimited, hit, parse_rate
from live.events import publish
from rules.base import Msg, RulesError, ScriptedRandom, is_digits, validate_fields

User = get_user_model()

#: Boards every new campaign starts with (name msgid, kind).
DEFAULT_BOARDS: tuple[tuple[str, str], ...] = (
    (gettext_noop("In character"), Board.Kind.IN_CHARACTER),
    (gettext_noop("Out of character"), Board.Kind.OUT_OF_CHARACTER),
    (gettext_noop("Rules and organisation"), Board.Kind.META),
)
MAX_ROLLS_PER_POST = 10
#: First URL segments under /campaigns/ that are not campaigns.
RESERVED_SLUGS = frozenset({"new", "notifications", "invitations", "threads", "posts", "sessions"})
MAX_RECIPIENTS = 50


def _lang() -> str:
    return get_language() or "fr"


def _rules_errors(exc: RulesError, prefix: str = "") -> list[str]:
    lang = _lang()
    return [(f"{prefix}{e.path}: " if e.path and prefix else "") + e.message.get(lang) for e in exc.errors]


def _require_member_writer(user: Any, campaign: Campaign) -> None:
    if not access.can_view_campaign(user, campaign):
        raise Http404
    if not access.can_post(user, campaign):
        raise PermissionDenied(_("You cannot write in this campaign."))


def _require_gm(user: Any, campaign: Campaign) -> None:
    if not access.can_view_campaign(user, campaign):
        raise Http404
    if not access.is_gm(user, campaign):
        raise PermissionDenied(_("Only the GM and co-GMs can do this."))


def _require_main_gm(user: Any, campaign: Campaign) -> None:
    if not access.can_view_campaign(user, campaign):
        raise Http404
    if access.role_of(user, campaign) != Role.GM:
        raise PermissionDenied(_("Only the GM can do this."))


def _unique_slug(title: str) -> str:
    base = slugify(title)[:120] or "table"
    if is_digits(base) or base in RESERVED_SLUGS:
        base = f"table-{base}"
    slug = base
    while Campaign.objects.filter(slug=slug).exists():
        slug = f"{base}-{secrets.token_hex(3)}"
    return slug


# ---------------------------------------------------------------------------
# Campaigns
# ---------------------------------------------------------------------------
def _clean_campaign_fields(
    *, title: str, pitch: str, is_public: bool, recruiting: bool, language: str
) -> dict[str, Any]:
    errors: dict[str, list[str]] = {}
    title = (title or "").strip()
    if not title:
        errors["title"] = [_("Give the campaign a title.")]
    elif len(title) > 120:
        errors["title"] = [_("At most 120 characters.")]
    if len(pitch or "") > 5000:
        errors["pitch"] = [_("At most 5000 characters.")]
    if language not in dict(settings.LANGUAGES):
        errors["language"] = [_("Unknown language.")]
    if errors:
        raise ValidationError(errors)
    return {
        "title": title,
        "pitch": (pitch or "").strip(),
        "is_public": bool(is_public),
        "recruiting": bool(recruiting),
        "language": language,
    }


def validate_system_settings(system_slug: str, values: dict[str, Any]) -> dict[str, Any]:
    """Check campaign options against the system's declarations (field errors keyed ``system__<path>``)."""
    system = rules.get_system(system_slug)
    fields = system.campaign_settings_fields()
    errors = validate_fields(values, fields)
    if not errors:
        errors = system.validate_settings(system.settings(values))
    if errors:
        out: dict[str, list[str]] = {}
        for e in errors:
            out.setdefault(f"system__{e.path}".replace(".", "__"), []).append(e.message.get(_lang()))
        raise ValidationError(out)
    known = {f.path.split(".")[0] for f in fields}
    return {key: value for key, value in values.items() if key in known}


def create_campaign(
    user: Any,
    *,
    title: str,
    pitch: str = "",
    system: str,
    is_public: bool = True,
    recruiting: bool = False,
    language: str = "fr",
    system_settings: dict[str, Any] | None = None,
) -> Campaign:
    """A member creates a campaign; they become its GM; default boards are created."""
    if user is None or not user.is_authenticated:
        raise PermissionDenied(_("Log in to create a campaign."))
    data = _clean_campaign_fields(
        title=title, pitch=pitch, is_public=is_public, recruiting=recruiting, language=language
    )
    if system not in rules.SYSTEM_MODULES:
        raise ValidationError({"system": [_("Choose a rule system from the list.")]})
    # Starter content (a catalogue from what the text gives) the GM then edits.
    starter = rules.get_system(system).starter_settings()
    options = validate_system_settings(system, {**starter, **(system_settings or {})})
    with transaction.atomic():
        campaign = Campaign.objects.create(
            slug=_unique_slug(data["title"]),
            system=system,
            system_settings=options,
            created_by=user,
            invite_token=secrets.token_urlsafe(24),
            **data,
        )
        Membership.objects.create(campaign=campaign, user=user, role=Role.GM)
        dice.current_seed(campaign)  # the first dice commitment is public before any roll
        with override(campaign.language):  # board names in the table's language
            for position, (name, kind) in enumerate(DEFAULT_BOARDS):
                Board.objects.create(campaign=campaign, name=_(name), kind=kind, position=position)
    return campaign


def update_campaign(
    user: Any,
    campaign: Campaign,
    *,
    title: str,
    pitch: str = "",
    is_public: bool = True,
    recruiting: bool = False,
    language: str = "fr",
    system_settings: dict[str, Any] | None = None,
) -> Campaign:
    """The GM or a co-GM changes the campaign's settings (the system is fixed).

    The public listing (title, pitch, public, recruiting, language) is the
    GM's alone (DESIGN.md: "public campaign listing — can change: GM"); a
    co-GM may change the system options and must leave the listing as it is.
    """
    _require_gm(user, campaign)
    data = _clean_campaign_fields(
        title=title, pitch=pitch, is_public=is_public, recruiting=recruiting, language=language
    )
    if access.role_of(user, campaign) != Role.GM and any(getattr(campaign, k) != v for k, v in data.items()):
        raise PermissionDenied(_("Only the GM changes the public listing (title, pitch, visibility, recruiting)."))
    options = validate_system_settings(campaign.system, system_settings or {}) if system_settings is not None else None
    with transaction.atomic():
        for key, value in data.items():
            setattr(campaign, key, value)
        fields = list(data)
        if options is not None:
            campaign.system_settings = options
            fields.append("system_settings")
        campaign.save(update_fields=fields)
    return campaign


# ---------------------------------------------------------------------------
# Memberships
# ---------------------------------------------------------------------------
def set_member_role(user: Any, campaign: Campaign, member: Any, *, role: str) -> Membership:
    """The GM appoints co-GMs and changes players/spectators (not the GM role: see :func:`hand_over`)."""
    _require_main_gm(user, campaign)
    if role not in (Role.COGM, Role.PLAYER, Role.SPECTATOR):
        raise ValidationError({"role": [_("Choose co-GM, player or spectator.")]})
    membership = Membership.objects.filter(campaign=campaign, user=member).first()
    if membership is None:
        raise ValidationError({"user": [_("This person is not a member of the campaign.")]})
    if membership.role == Role.GM:
        raise ValidationError({"user": [_("Hand the campaign over instead.")]})
    with transaction.atomic():
        membership.role = role
        membership.save(update_fields=["role"])
    campaign.__dict__.pop("_role_cache", None)
    return membership


def hand_over(user: Any, campaign: Campaign, new_gm: Any) -> Campaign:
    """The GM hands the campaign over to another member, and becomes a co-GM."""
    _require_main_gm(user, campaign)
    target = Membership.objects.filter(campaign=campaign, user=new_gm).first()
    if target is None or new_gm.pk == user.pk:
        raise ValidationError({"user": [_("Choose another member of the campaign.")]})
    with transaction.atomic():
        Membership.objects.filter(campaign=campaign, user=user).update(role=Role.COGM)
        Membership.objects.filter(pk=target.pk).update(role=Role.GM)
    campaign.__dict__.pop("_role_cache", None)
    return campaign


def _add_member(campaign: Campaign, user: Any, role: str) -> Membership:
    membership, _created = Membership.objects.get_or_create(campaign=campaign, user=user, defaults={"role": role})
    campaign.__dict__.pop("_role_cache", None)
    return membership


def invite_member(user: Any, campaign: Campaign, *, username: str, role: str = Role.PLAYER) -> Invitation:
    """The GM or a co-GM invites a member by username (they accept or decline)."""
    _require_gm(user, campaign)
    if role not in (Role.PLAYER, Role.SPECTATOR, Role.COGM):
        raise ValidationError({"role": [_("Choose player, spectator or co-GM.")]})
    if role == Role.COGM and access.role_of(user, campaign) != Role.GM:
        raise PermissionDenied(_("Only the GM can do this."))
    invitee = User.objects.filter(username__iexact=(username or "").strip().lstrip("@"), is_active=True).first()
    if invitee is None:
        raise ValidationError({"username": [_("No member has this username.")]})
    if access.role_of(invitee, campaign) is not None:
        raise ValidationError({"username": [_("This person is already a member.")]})
    with transaction.atomic():
        invitation = Invitation.objects.filter(
            campaign=campaign, user=invitee, status=Invitation.Status.PENDING
        ).first()
        if invitation is None:
            invitation = Invitation.objects.create(campaign=campaign, user=invitee, role=role, invited_by=user)
            _notify(invitee, Notification.Kind.INVITATION, campaign, actor=user, text=campaign.title)
    return invitation


def answer_invitation(user: Any, invitation: Invitation, *, accept: bool) -> Membership | None:
    """The invitee accepts or declines."""
    if invitation.user_id != getattr(user, "pk", None) or invitation.status != Invitation.Status.PENDING:
        raise Http404
    with transaction.atomic():
        invitation.status = Invitation.Status.ACCEPTED if accept else Invitation.Status.DECLINED
        invitation.save(update_fields=["status"])
        if not accept:
            return None
        return _add_member(invitation.campaign, user, invitation.role)


def cancel_invitation(user: Any, invitation: Invitation) -> None:
    _require_gm(user, invitation.campaign)
    Invitation.objects.filter(pk=invitation.pk, status=Invitation.Status.PENDING).update(
        status=Invitation.Status.CANCELLED
    )


def reset_invite_link(user: Any, campaign: Campaign) -> str:
    """A new invitation link (the old one stops working)."""
    _require_gm(user, campaign)
    campaign.invite_token = secrets.token_urlsafe(24)
    campaign.save(update_fields=["invite_token"])
    return campaign.invite_token


def join_by_link(user: Any, campaign: Campaign, token: str) -> Membership:
    """Join as a player with the campaign's invitation link."""
    if user is None or not user.is_authenticated:
        raise PermissionDenied
    if not campaign.invite_token or not secrets.compare_digest(campaign.invite_token.encode(), (token or "").encode()):
        raise Http404
    with transaction.atomic():
        return _add_member(campaign, user, Role.PLAYER)


def request_to_join(user: Any, campaign: Campaign, *, message: str = "") -> JoinRequest:
    """A member asks to join a public recruiting campaign."""
    if not access.can_view_campaign(user, campaign):
        raise Http404
    if user is None or not user.is_authenticated:
        raise PermissionDenied
    if access.role_of(user, campaign) is not None:
        raise ValidationError({"message": [_("You are already a member.")]})
    if not campaign.recruiting:
        raise ValidationError({"message": [_("This campaign is not recruiting.")]})
    if len(message or "") > 2000:
        raise ValidationError({"message": [_("At most 2000 characters.")]})
    with transaction.atomic():
        existing = JoinRequest.objects.filter(campaign=campaign, user=user, status=JoinRequest.Status.PENDING).first()
        if existing:
            return existing
        join = JoinRequest.objects.create(campaign=campaign, user=user, message=(message or "").strip())
        for gm_id in Membership.objects.filter(campaign=campaign, role__in=access.GM_ROLES).values_list(
            "user_id", flat=True
        ):
            _notify(User(pk=gm_id), Notification.Kind.JOIN_REQUEST, campaign, actor=user, text=campaign.title)
    return join


def decide_join_request(user: Any, join: JoinRequest, *, accept: bool, role: str = Role.PLAYER) -> Membership | None:
    """The GM or a co-GM accepts (as player or spectator) or refuses a join request."""
    _require_gm(user, join.campaign)
    if join.status != JoinRequest.Status.PENDING:
        raise ValidationError({"status": [_("This request has already been answered.")]})
    if role not in (Role.PLAYER, Role.SPECTATOR):
        raise ValidationError({"role": [_("Choose player or spectator.")]})
    with transaction.atomic():
        join.status = JoinRequest.Status.ACCEPTED if accept else JoinRequest.Status.REFUSED
        join.decided_by = user
        join.decided_at = timezone.now()
        join.save(update_fields=["status", "decided_by", "decided_at"])
        return _add_member(join.campaign, join.user, role) if accept else None


def leave_campaign(user: Any, campaign: Campaign) -> None:
    """A member leaves (their posts stay). The GM must hand over first."""
    role = access.role_of(user, campaign)
    if role is None:
        raise Http404
    if role == Role.GM:
        raise ValidationError({"__all__": [_("Hand the campaign over before leaving it.")]})
    Membership.objects.filter(campaign=campaign, user=user).delete()
    campaign.__dict__.pop("_role_cache", None)


def remove_member(user: Any, campaign: Campaign, member: Any) -> None:
    """The GM (or a co-GM, for players and spectators) removes a member; their posts stay."""
    _require_gm(user, campaign)
    role = access.role_of(member, campaign)
    if role is None:
        raise ValidationError({"user": [_("This person is not a member of the campaign.")]})
    if role == Role.GM:
        raise PermissionDenied(_("The GM cannot be removed."))
    if role == Role.COGM and access.role_of(user, campaign) != Role.GM:
        raise PermissionDenied(_("Only the GM can do this."))
    Membership.objects.filter(campaign=campaign, user=member).delete()
    campaign.__dict__.pop("_role_cache", None)


# ---------------------------------------------------------------------------
# Boards and threads
# ---------------------------------------------------------------------------
def _clean_name(name: str, field: str = "name", max_length: int = 80) -> str:
    name = (name or "").strip()
    if not name:
        raise ValidationError({field: [_("This field is required.")]})
    if len(name) > max_length:
        raise ValidationError({field: [_("At most %(n)d characters.") % {"n": max_length}]})
    return name


def add_board(user: Any, campaign: Campaign, *, name: str, kind: str = Board.Kind.OTHER) -> Board:
    _require_gm(user, campaign)
    name = _clean_name(name)
    if kind not in Board.Kind.values:
        raise ValidationError({"kind": [_("Choose a kind from the list.")]})
    with transaction.atomic():
        last = campaign.boards.order_by("-position").values_list("position", flat=True).first()
        return Board.objects.create(campaign=campaign, name=name, kind=kind, position=(last or 0) + 1)


def rename_board(user: Any, board: Board, *, name: str) -> Board:
    _require_gm(user, board.campaign)
    board.name = _clean_name(name)
    board.save(update_fields=["name"])
    return board


def move_board(user: Any, board: Board, *, offset: int) -> list[Board]:
    """Move a board up (``-1``) or down (``+1``) in the campaign's order."""
    _require_gm(user, board.campaign)
    with transaction.atomic():
        boards = list(board.campaign.boards.select_for_update().order_by("position", "id"))
        index = next(i for i, b in enumerate(boards) if b.pk == board.pk)
        target = max(0, min(len(boards) - 1, index + offset))
        boards.insert(target, boards.pop(index))
        for position, item in enumerate(boards):
            if item.position != position:
                item.position = position
                item.save(update_fields=["position"])
    return boards


def create_thread(
    user: Any,
    board: Board,
    *,
    title: str,
    body: str,
    sticky: bool = False,
    locked: bool = False,
    character: Any = None,
    visibility: str = Post.Visibility.PUBLIC,
    recipients: Iterable[Any] = (),
    roll_requests: Sequence[dict[str, Any]] = (),
    client_nonce: str | None = None,
) -> Thread:
    """Open a thread (a scene) with its first post. Sticky/locked: GMs only."""
    campaign = board.campaign
    _require_member_writer(user, campaign)
    title = _clean_name(title, "title", 160)
    if (sticky or locked) and not access.is_gm(user, campaign):
        raise PermissionDenied(_("Only the GM and co-GMs can do this."))
    with transaction.atomic():
        thread = Thread.objects.create(
            board=board, campaign=campaign, title=title, created_by=user, sticky=sticky, locked=False
        )
        create_post(
            user,
            thread,
            body=body,
            character=character,
            visibility=visibility,
            recipients=recipients,
            roll_requests=roll_requests,
            client_nonce=client_nonce,
        )
        if locked:
            Thread.objects.filter(pk=thread.pk).update(locked=True)
            thread.locked = True
    thread.refresh_from_db()
    return thread


def update_thread(
    user: Any,
    thread: Thread,
    *,
    title: str | None = None,
    sticky: bool | None = None,
    locked: bool | None = None,
    board: Board | None = None,
) -> Thread:
    """The GM or a co-GM renames, pins, locks or moves a thread."""
    _require_gm(user, thread.campaign)
    fields = []
    if title is not None:
        thread.title = _clean_name(title, "title", 160)
        fields.append("title")
    if sticky is not None:
        thread.sticky = bool(sticky)
        fields.append("sticky")
    if locked is not None:
        thread.locked = bool(locked)
        fields.append("locked")
    if board is not None:
        if board.campaign_id != thread.campaign_id:
            raise ValidationError({"board": [_("Choose a board of this campaign.")]})
        thread.board = board
        fields.append("board")
    if fields:
        thread.save(update_fields=fields)
    return thread


# ---------------------------------------------------------------------------
# Posts
# ---------------------------------------------------------------------------
def check_post_rate(user: Any) -> None:
    """At most ``settings.TABLEE_POST_RATE`` posts per period (default ``"10/m"``)."""
    count, period = parse_rate(getattr(settings, "TABLEE_POST_RATE", "10/m"))
    if count <= 0:
        return
    used, wait = hit(f"post:{user.pk}", period)
    if used > count:
        raise RateLimited(
            {
                "__all__": [
                    _(
                        "You are posting too fast: at most %(count)d posts every %(period)d seconds. "
                        "Try again in %(wait)d seconds."
                    )
                    % {"count": count, "period": period, "wait": wait}
                ]
            },
            retry_after=wait,
            code="rate_limited",
        )


def _mentionable(campaign: Campaign) -> dict[str, int]:
    return {
        username.lower(): pk
        for pk, username in Membership.objects.filter(campaign=campaign).values_list("user_id", "user__username")
    }


def _render(body: str, campaign: Campaign) -> tuple[str, set[int]]:
    members = _mentionable(campaign)
    mentioned = {members[name.lower()] for name in markup.find_mentions(body) if name.lower() in members}
    names = [name for name in markup.find_mentions(body) if name.lower() in members]
    return markup.render_markdown(body, mentionable=names), mentioned


def _clean_body(body: str) -> str:
    body = (body or "").replace("\r\n", "\n")
    if not body.strip():
        raise ValidationError({"body": [_("Write something: the post is empty.")]})
    limit = settings.TABLEE_MAX_POST_LENGTH
    if len(body) > limit:
        raise ValidationError(
            {
                "body": [
                    _("The post is too long: %(length)d characters, at most %(limit)d.")
                    % {"length": len(body), "limit": limit}
                ]
            }
        )
    return body


def _check_character(user: Any, campaign: Campaign, character: Any) -> Any:
    if character is None or character == "":
        return None
    from characters.models import Character

    if not isinstance(character, Character):
        character = Character.objects.filter(pk=character).first()
    if character is None or character.campaign_id != campaign.pk:
        raise ValidationError({"character": [_("Choose one of your characters in this campaign.")]})
    own = character.owner_id == user.pk and not character.is_npc
    if not (own or access.is_gm(user, campaign)):
        raise ValidationError({"character": [_("Choose one of your characters in this campaign.")]})
    if character.status == Character.Status.DEAD:
        raise ValidationError({"character": [_("%(name)s is dead and cannot speak.") % {"name": character.name}]})
    return character


def _check_recipients(user: Any, campaign: Campaign, recipients: Iterable[Any]) -> list[int]:
    ids: set[int] = set()
    for item in recipients:
        pk = getattr(item, "pk", item)
        try:
            ids.add(int(pk))
        except (TypeError, ValueError):
            raise ValidationError({"recipients": [_("Choose members of the campaign.")]}) from None
    ids.discard(user.pk)
    if len(ids) > MAX_RECIPIENTS:
        raise ValidationError({"recipients": [_("Too many addressees.")]})
    found = set(Membership.objects.filter(campaign=campaign, user_id__in=ids).values_list("user_id", flat=True))
    if found != ids:
        raise ValidationError({"recipients": [_("Choose members of the campaign.")]})
    return sorted(ids)


def build_sheet_test(
    user: Any, campaign: Campaign, character: Any, test: str, declared: dict[str, Any] | None = None
) -> tuple[dict[str, Any], dict[str, Any]]:
    """The request of the sheet test ``test`` of ``character``, built by the rules, and its sheet record.

    Nothing here computes a number: the rules read the character's current sheet
    (``RuleSystem.build_test``). A player may declare only the player inputs of the
    test; a GM-only one (difficulty, GM modifier, opposition) from a player is refused
    by the rules, so a player's request never carries it. Raises ``RulesError``.
    ``character`` must be one of :func:`sheet_test_characters`.
    """
    system = rules.get_system(campaign.system)
    settings_ = system.settings(campaign.system_settings)
    sheet = character.current_sheet()
    built = system.build_test(sheet, test, declared or {}, settings_, None, gm=access.is_gm(user, campaign))
    source = {
        "character": character.pk,
        "name": character.name,
        "version": character.version,
        "test": built.key,
        "label": built.label.to_dict(),
        "reads": [r.to_dict() for r in built.reads],
        "declared": built.declared,
        # What the GM may still add after the roll (see add_gm_inputs).
        "gm_fields": [f.to_dict() for f in built.declarable if f.audience == "gm"],
    }
    return built.request, source


def _prepare_rolls(user: Any, campaign: Campaign, roll_requests: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """Validate and roll every request before anything is written.

    A system test is built by the rules from the chosen character's sheet
    (``{"sheet_test": {"test": key, "declared": {...}}, "character_id": ...}``);
    a test typed in full (``system_test``) is the GM's only: a player's numbers are never rolled.
    """
    if len(roll_requests) > MAX_ROLLS_PER_POST:
        raise ValidationError({"rolls": [_("At most %(n)d rolls per post.") % {"n": MAX_ROLLS_PER_POST}]})
    prepared: list[dict[str, Any]] = []
    errors: list[str] = []
    is_gm = access.is_gm(user, campaign)
    for index, request in enumerate(roll_requests, start=1):
        if not isinstance(request, dict) or not (
            request.get("expression") or request.get("system_test") or request.get("sheet_test")
        ):
            errors.append(_("Roll %(n)d: give a dice expression or a test.") % {"n": index})
            continue
        character = None
        if request.get("character_id"):
            try:
                character = _check_character(user, campaign, request["character_id"])
            except ValidationError:
                errors.append(_("Roll %(n)d: choose one of your characters.") % {"n": index})
                continue
        source = None
        try:
            if request.get("sheet_test") is not None:
                sheet_test = request["sheet_test"]
                if not isinstance(sheet_test, dict) or not isinstance(sheet_test.get("declared") or {}, dict):
                    raise RulesError([])
                if character is None or not sheet_test_characters(user, campaign).filter(pk=character.pk).exists():
                    errors.append(
                        _("Roll %(n)d: choose one of your characters whose sheet is approved.") % {"n": index}
                    )
                    continue
                test, source = build_sheet_test(
                    user, campaign, character, str(sheet_test.get("test") or ""), sheet_test.get("declared") or {}
                )
                label = request.get("label") or source["label"].get(_lang(), "")
                request = {"system_test": test, "label": label, "secret": request.get("secret")}
            elif request.get("system_test") is not None:
                if not is_gm:
                    errors.append(
                        _(
                            "Roll %(n)d: a test is built from your character's sheet: choose the character and "
                            "what to roll (the numbers are never typed in)."
                        )
                        % {"n": index}
                    )
                    continue
                if not isinstance(request["system_test"], dict):
                    raise RulesError([])
                request = _with_character_sheet(campaign, request, character)
            rolled = dice.resolve_request(campaign, request)
            if isinstance(rolled.get("request"), dict):
                rolled["request"].pop("sheet", None)  # read from the character, not stored with the roll
        except RulesError as exc:
            messages = _rules_errors(exc) or [_("invalid test.")]
            errors.extend(_("Roll %(n)d: %(error)s") % {"n": index, "error": m} for m in messages)
            continue
        if source is not None:
            rolled["request"] = {**rolled["request"], "from_sheet": source}
        rolled["secret"] = bool(request.get("secret"))
        rolled["character"] = character
        rolled["source_request"] = request
        prepared.append(rolled)
    if errors:
        raise ValidationError({"rolls": errors})
    return prepared


def _with_character_sheet(campaign: Campaign, request: dict[str, Any], character: Any) -> dict[str, Any]:
    """A system test whose kind reads a ``sheet`` (an Altaride skill test) gets
    the chosen character's current sheet from the server; a posted one is
    never trusted."""
    test = request.get("system_test")
    if not isinstance(test, dict):
        return request
    test = {k: v for k, v in test.items() if k != "sheet"}
    fields = rules.get_system(campaign.system).test_kinds().get(str(test.get("kind", "")), ())
    if character is not None and any(f.path == "sheet" for f in fields):
        test["sheet"] = character.current_sheet()
    return {**request, "system_test": test}


def post_audience(post: Post) -> dict[str, Any]:
    """Who receives live events about this post (see ``live.events.publish``)."""
    if post.hidden:
        return {"gms_only": True}
    if post.visibility == Post.Visibility.GM_ONLY:
        return {"users": [post.author_id] if post.author_id else []}
    if post.visibility == Post.Visibility.WHISPER:
        return {"users": [post.author_id, *post.recipients.values_list("id", flat=True)]}
    return {}


def _update_search(post: Post) -> None:
    if getattr(settings, "USING_POSTGRES", False):
        from django.contrib.postgres.search import SearchVector

        Post.objects.filter(pk=post.pk).update(
            search_vector=SearchVector("body", config="french") + SearchVector("body", config="english")
        )


def create_post(
    user: Any,
    thread: Thread,
    *,
    body: str,
    character: Any = None,
    visibility: str = Post.Visibility.PUBLIC,
    recipients: Iterable[Any] = (),
    roll_requests: Sequence[dict[str, Any]] = (),
    reply_to: Post | None = None,
    system_message: bool = False,
    turn_for: Iterable[Any] = (),
    client_nonce: str | None = None,
) -> Post:
    """Write a post in a thread, with its rolls.

    ``roll_requests``: ``{"expression": "2d6+3", "label": "...", "secret": False}``
    or ``{"system_test": {...}, "character_id": ..., "secret": bool}``. Every
    request is validated before anything is saved, then rolled from the campaign's
    committed seed mixed with ``client_nonce`` (the browser's; see ``campaigns.dice``);
    the rolls are chained in the campaign and linked to the post and the open
    session. ``system_message``: a GM posts on behalf of the system (e.g. a
    combat round summary), without the locked-thread and rate checks.
    ``turn_for``: members told "your turn" (GMs only).
    """
    campaign = thread.campaign
    if system_message:
        if not access.can_view_campaign(user, campaign):
            raise Http404
        if not access.is_gm(user, campaign):
            raise PermissionDenied(_("Only the GM and co-GMs can do this."))
    else:
        _require_member_writer(user, campaign)
        if thread.locked and not access.is_gm(user, campaign):
            raise PermissionDenied(_("This thread is locked."))
    body = _clean_body(body)
    if visibility not in Post.Visibility.values:
        raise ValidationError({"visibility": [_("Choose who can read the post.")]})
    character = None if system_message else _check_character(user, campaign, character)
    recipient_ids = _check_recipients(user, campaign, recipients) if visibility == Post.Visibility.WHISPER else []
    if visibility == Post.Visibility.WHISPER and not recipient_ids:
        raise ValidationError({"recipients": [_("Choose who the whisper is for.")]})
    if reply_to is not None and (reply_to.thread_id != thread.pk or not access.can_see_post(user, reply_to)):
        raise ValidationError({"reply_to": [_("You can only reply to a post of this thread.")]})
    turn_ids: list[int] = []
    if turn_for:
        if not access.is_gm(user, campaign):
            raise PermissionDenied(_("Only the GM and co-GMs can do this."))
        turn_ids = _check_recipients(user, campaign, turn_for)
    rolls = _prepare_rolls(user, campaign, list(roll_requests))
    client_nonce = dice.clean_nonce(client_nonce)
    if not system_message:
        check_post_rate(user)
    html, mentioned = _render(body, campaign)
    now = timezone.now()
    with transaction.atomic():
        locked_thread = Thread.objects.select_for_update().get(pk=thread.pk)
        session = PlaySession.objects.filter(campaign=campaign, status=PlaySession.Status.OPEN).first()
        post = Post.objects.create(
            thread=thread,
            campaign=campaign,
            number=locked_thread.post_count + 1,
            author=user,
            character=character,
            visibility=visibility,
            body=body,
            body_html=html,
            reply_to=reply_to,
            session=session,
            is_system=system_message,
        )
        if recipient_ids:
            post.recipients.set(recipient_ids)
        Thread.objects.filter(pk=thread.pk).update(post_count=F("post_count") + 1, last_post_at=now)
        thread.post_count = locked_thread.post_count + 1
        thread.last_post_at = now
        for prepared in rolls:
            source = dice.fair_source(campaign, prepared["request"], client_nonce=client_nonce)
            try:
                rolled = dice.resolve_request(campaign, prepared["source_request"], rng=source)
            except RulesError as exc:  # validated above: only a draw-dependent rules error lands here
                raise ValidationError({"rolls": _rules_errors(exc) or [_("invalid test.")]}) from exc
            if isinstance(rolled.get("request"), dict):
                rolled["request"].pop("sheet", None)  # read from the character, not stored with the roll
            if "from_sheet" in prepared["request"]:  # what the test read, as prepared (and hashed by the source)
                rolled["request"] = {**rolled["request"], "from_sheet": prepared["request"]["from_sheet"]}
            dice.record_roll(
                campaign,
                roller=user,
                kind=rolled["kind"],
                system=rolled["system"],
                request=rolled["request"],
                resolution=rolled["resolution"],
                source=source,
                label=rolled["label"],
                secret=prepared["secret"],
                post=post,
                session=session,
                character=prepared["character"],
            )
        _update_search(post)
        ThreadRead.objects.update_or_create(user=user, thread=thread, defaults={"last_read_number": post.number})
        _notify_post(user, post, mentioned, recipient_ids, turn_ids)
        publish(f"thread:{thread.pk}", "post-created", {"thread": thread.pk, "number": post.number}, **_audience(post))
        publish(
            f"campaign:{campaign.pk}", "post-created", {"thread": thread.pk, "number": post.number}, **_audience(post)
        )
    return post


def _audience(post: Post) -> dict[str, Any]:
    audience = post_audience(post)
    if audience.get("gms_only"):
        return {"gms_only": True}
    if "users" in audience:
        return {"users": audience["users"]}
    return {}


def _notify(
    user: Any, kind: str, campaign: Campaign, *, actor: Any = None, thread: Any = None, post: Any = None, text: str = ""
) -> Notification | None:
    """One notification, delivered as the member chose for its kind (``rhythm.services.notify``)."""
    from rhythm.services import notify

    created = notify(kind, [user.pk], campaign, actor=actor, thread=thread, post=post, text=text)
    return created[0] if created else None


def _notify_post(user: Any, post: Post, mentioned: set[int], whispered: list[int], turn: list[int]) -> None:
    """Mentions, replies, whispers, turns: one notification per person (most specific kind)."""
    targets: dict[int, str] = {}
    for pk in mentioned:
        targets[pk] = Notification.Kind.MENTION
    if post.reply_to_id and post.reply_to.author_id:
        targets[post.reply_to.author_id] = Notification.Kind.REPLY
    for pk in whispered:
        targets[pk] = Notification.Kind.WHISPER
    for pk in turn:
        targets[pk] = Notification.Kind.TURN
    targets.pop(user.pk, None)
    if not targets:
        return
    members = {
        m.user_id: m
        for m in Membership.objects.filter(campaign=post.campaign, user_id__in=list(targets)).select_related("user")
    }
    for pk, kind in targets.items():
        member = members.get(pk)
        if member is None:
            continue
        if not access.can_see_post(member.user, post):
            continue
        _notify(member.user, kind, post.campaign, actor=user, thread=post.thread, post=post, text=post.thread.title)


def edit_post(user: Any, post: Post, *, body: str) -> Post:
    """The author (or a GM, for a GM-only post) edits; every version is kept; rolls never change."""
    if not access.can_see_post(user, post):
        raise Http404
    if not access.can_edit_post(user, post):
        raise PermissionDenied(_("You cannot edit this post."))
    body = _clean_body(body)
    if body == post.body:
        return post
    html, _mentioned = _render(body, post.campaign)
    with transaction.atomic():
        PostVersion.objects.create(post=post, body=post.body, edited_by=user)
        post.body = body
        post.body_html = html
        post.edited = timezone.now()
        post.save(update_fields=["body", "body_html", "edited"])
        _update_search(post)
        publish(
            f"thread:{post.thread_id}",
            "post-edited",
            {"thread": post.thread_id, "number": post.number},
            **_audience(post),
        )
    return post


def can_lower_die(user: Any, roll: Roll) -> bool:
    """Whether ``user`` may spend experience on ``roll`` (the system offers it; their own PC's test)."""
    if roll.kind != "system" or roll.post_id is None or roll.character_id is None:
        return False
    if user is None or not user.is_authenticated or roll.roller_id != user.pk:
        return False
    if roll.system not in rules.SYSTEM_MODULES or not isinstance(roll.resolution, dict):
        return False
    return rules.get_system(roll.system).can_lower_die(roll.resolution)


def lower_roll_die(user: Any, roll: Roll, *, points: Any) -> Roll:
    """Spend experience to lower the die of one's own stored test (Altaride L217, spec A13).

    The stored roll never changes: the lowering is a NEW roll of the chain, in the same post,
    carrying the re-evaluated outcome computed by ``rules`` (``RuleSystem.lower_die``) and a
    reference to the roll it lowers; the experience spent is a ledger entry written in the same
    transaction. Readings (A13): player characters only, by their roller; a lowering roll belongs
    to no session and counts no natural 1 (the dice were already counted once).
    """
    from characters import ledger
    from characters.models import Character

    if not access.can_see_roll(user, roll):
        raise Http404
    if not can_lower_die(user, roll):
        raise PermissionDenied(_("You cannot spend experience on this roll."))
    character = Character.objects.filter(pk=roll.character_id, owner=user, is_npc=False).first()
    if character is None:
        raise PermissionDenied(_("You cannot spend experience on this roll."))
    try:
        points = int(points)
    except (TypeError, ValueError):
        raise ValidationError({"points": [_("Enter a whole number of points.")]}) from None
    system = rules.get_system(roll.system)
    settings_ = system.settings(roll.campaign.system_settings)
    with transaction.atomic():
        Character.objects.select_for_update().filter(pk=character.pk).values_list("pk", flat=True).first()
        later = Roll.objects.filter(campaign=roll.campaign_id, request__lower_die__sequence=roll.sequence).first()
        if later is not None:
            raise ValidationError(
                {"points": [_("This roll was already lowered: lower roll #%(n)d instead.") % {"n": later.sequence}]}
            )
        balance = ledger.balances(character).get("xp", 0)
        try:
            outcome, draft = system.lower_die(roll.resolution, points, balance, settings=settings_)
        except RulesError as exc:
            raise ValidationError({"points": _rules_errors(exc)}) from None
        for key in ("natural_ones", "defender_natural_ones"):
            if key in outcome:
                outcome[key] = 0
        note = draft.note.get(_lang())
        succeeded = outcome.get("success")
        verdict = Msg("réussite", "success") if succeeded else Msg("échec", "failure")
        summary = Msg(
            f"{draft.note.fr} (jet n° {roll.sequence}) : dé {outcome.get('die', '?')}, {verdict.fr}",
            f"{draft.note.en} (roll #{roll.sequence}): die {outcome.get('die', '?')}, {verdict.en}",
        )
        resolution = {
            **roll.resolution,
            "outcome": outcome,
            "summary": summary.to_dict(),
            "tags": [],
            "lowers": {"sequence": roll.sequence, "points": points, "xp": -draft.amount},
        }
        resolution.pop("odds", None)
        lowered = dice.record_roll(
            roll.campaign,
            roller=user,
            kind="system",
            system=roll.system,
            request={"lower_die": {"sequence": roll.sequence, "points": points}},
            resolution=resolution,
            derived_from=roll.sequence,
            label=roll.label,
            secret=roll.secret,
            post=roll.post,
            character=character,
        )
        ledger.append_entry(
            character,
            draft.currency,
            draft.amount,
            draft.kind,
            created_by=user,
            note=note,
            data={**draft.data, "roll": lowered.sequence, "lowers": roll.sequence},
            key=f"lower-die:{roll.campaign_id}:{lowered.sequence}",
        )
        post = roll.post
        publish(
            f"thread:{post.thread_id}",
            "post-edited",
            {"thread": post.thread_id, "number": post.number},
            **_audience(post),
        )
    return lowered


def can_set_difficulty(user: Any, roll: Roll, *, is_gm: bool) -> bool:
    """Whether a GM may set the difficulty of ``roll`` after it was rolled (the system re-evaluates it)."""
    if not is_gm or roll.kind != "system" or roll.post_id is None or roll.system not in rules.SYSTEM_MODULES:
        return False
    if not isinstance(roll.resolution, dict):
        return False
    return rules.get_system(roll.system).can_reevaluate(roll.resolution)


def set_roll_difficulty(user: Any, roll: Roll, *, difficulty: Any) -> Roll:
    """The GM sets the difficulty of a stored test after the roll (Clefs de l'Aube L903-L911).

    The stored draws are re-evaluated by ``rules`` (``RuleSystem.reevaluate``) without re-rolling;
    the original roll never changes: the re-evaluation is a new roll of the chain, in the same
    post, pointing at the one it re-reads. Setting the difficulty reveals it (``nd_hidden`` off).
    It belongs to no session, so a session's awards never count its dice twice.
    """
    if not access.can_see_roll(user, roll):
        raise Http404
    if not can_set_difficulty(user, roll, is_gm=access.is_gm(user, roll.campaign)):
        raise PermissionDenied(_("Only the GM and co-GMs can set the difficulty of this roll."))
    try:
        difficulty = int(difficulty)
    except (TypeError, ValueError):
        raise ValidationError({"difficulty": [_("The difficulty is a whole number.")]}) from None
    system = rules.get_system(roll.system)
    with transaction.atomic():
        Campaign.objects.select_for_update().filter(pk=roll.campaign_id).values_list("pk", flat=True).first()
        later = Roll.objects.filter(campaign=roll.campaign_id, request__reevaluate__sequence=roll.sequence).first()
        if later is not None:
            raise ValidationError(
                {"difficulty": [_("This roll was already re-read: use roll #%(n)d instead.") % {"n": later.sequence}]}
            )
        try:
            resolution = system.reevaluate(roll.resolution, difficulty, nd_hidden=False)
        except RulesError as exc:
            raise ValidationError({"difficulty": _rules_errors(exc)}) from None
        resolution["reevaluates"] = {"sequence": roll.sequence, "difficulty": difficulty}
        resolution.pop("odds", None)
        reread = dice.record_roll(
            roll.campaign,
            roller=user,
            kind="system",
            system=roll.system,
            request={"reevaluate": {"sequence": roll.sequence, "difficulty": difficulty}},
            resolution=resolution,
            derived_from=roll.sequence,
            label=roll.label,
            secret=roll.secret,
            post=roll.post,
            character=roll.character,
        )
        post = roll.post
        publish(
            f"thread:{post.thread_id}",
            "post-edited",
            {"thread": post.thread_id, "number": post.number},
            **_audience(post),
        )
    return reread


def can_add_gm_inputs(user: Any, roll: Roll, *, is_gm: bool) -> bool:
    """Whether a GM may add GM-only inputs to ``roll`` after it was rolled (a test built from a sheet)."""
    source = roll.request.get("from_sheet") if isinstance(roll.request, dict) else None
    return (
        is_gm
        and roll.kind == "system"
        and roll.post_id is not None
        and roll.system in rules.SYSTEM_MODULES
        and isinstance(source, dict)
        and isinstance(roll.resolution, dict)
        and isinstance(roll.resolution.get("draws"), list)
    )


def add_gm_inputs(user: Any, roll: Roll, *, declared: dict[str, Any]) -> Roll:
    """The GM adds GM-only inputs (a difficulty, a modifier, the opposition) to a sheet roll, after it.

    The test is built again by the rules from the sheet version the roll read (not the current
    sheet), with the player's declared inputs plus the GM's, and resolved with the same stored
    draws (``ScriptedRandom``): nothing is re-rolled. The original roll never changes: the result is
    a new roll of the chain in the same post, pointing at it (``request.gm_inputs.sequence``). Inputs
    that would need other dice are refused. It belongs to no session (its dice are counted once).
    """
    from characters.models import SheetVersion

    if not access.can_see_roll(user, roll):
        raise Http404
    if not can_add_gm_inputs(user, roll, is_gm=access.is_gm(user, roll.campaign)):
        raise PermissionDenied(_("Only the GM and co-GMs can add their inputs to this roll."))
    if not isinstance(declared, dict) or not declared:
        raise ValidationError({"gm_inputs": [_("Give at least one of the GM's inputs.")]})
    source = dict(roll.request["from_sheet"])
    system = rules.get_system(roll.system)
    settings_ = system.settings(roll.campaign.system_settings)
    version = SheetVersion.objects.filter(character_id=source.get("character"), version=source.get("version")).first()
    if version is None:
        raise ValidationError({"gm_inputs": [_("The sheet version this roll read is missing.")]})
    sheet = system.migrate_sheet(dict(version.sheet), version.schema_version)
    merged = {**(source.get("declared") or {}), **declared}
    with transaction.atomic():
        Campaign.objects.select_for_update().filter(pk=roll.campaign_id).values_list("pk", flat=True).first()
        later = Roll.objects.filter(campaign=roll.campaign_id, request__gm_inputs__sequence=roll.sequence).first()
        if later is not None:
            raise ValidationError(
                {"gm_inputs": [_("This roll was already re-read: use roll #%(n)d instead.") % {"n": later.sequence}]}
            )
        replay = ScriptedRandom(roll.resolution["draws"])
        try:
            built = system.build_test(sheet, str(source.get("test") or ""), merged, settings_, None, gm=True)
            resolution = system.resolve(built.request, replay, settings_)
            if replay.remaining:
                raise ValueError("fewer dice")
        except RulesError as exc:
            raise ValidationError({"gm_inputs": _rules_errors(exc)}) from None
        except ValueError:  # the inputs ask for other dice than the ones rolled
            raise ValidationError({"gm_inputs": [_("These inputs would need other dice: roll a new test.")]}) from None
        data = resolution.to_dict()
        summary = resolution.summary
        data["summary"] = {
            "fr": f"Avec les données du MJ (jet n° {roll.sequence}) : {summary.fr}",
            "en": f"With the GM's inputs (roll #{roll.sequence}): {summary.en}",
        }
        source["declared"] = built.declared
        source["reads"] = [r.to_dict() for r in built.reads]
        reread = dice.record_roll(
            roll.campaign,
            roller=user,
            kind="system",
            system=roll.system,
            request={**built.request, "from_sheet": source, "gm_inputs": {"sequence": roll.sequence, **declared}},
            resolution=data,
            derived_from=roll.sequence,
            label=roll.label,
            secret=roll.secret,
            post=roll.post,
            character=roll.character,
        )
        post = roll.post
        publish(
            f"thread:{post.thread_id}",
            "post-edited",
            {"thread": post.thread_id, "number": post.number},
            **_audience(post),
        )
    return reread


def hide_post(user: Any, post: Post, *, hidden: bool = True, reason: str = "") -> Post:
    """GM, co-GM or moderator hides (or shows again) a post. Its rolls stay in the chain.

    The write only: callers go through :func:`moderation.services.hide_post` and
    ``restore_post`` (audit entry, reports closed, live event). A post a
    moderator hid is the moderators' to show again (or to hide anew).
    """
    if not access.can_see_post(user, post):
        raise Http404
    if not access.can_hide_post(user, post):
        raise PermissionDenied(_("Only the GM, co-GMs and moderators can hide a post."))
    if not access.can_change_hidden_state(user, post):
        raise PermissionDenied(_("A moderator hid this post: only a moderator can change that."))
    with transaction.atomic():
        post.hidden = hidden
        post.hidden_by = user if hidden else None
        post.hidden_reason = (reason or "")[:300] if hidden else ""
        post.save(update_fields=["hidden", "hidden_by", "hidden_reason"])
    return post


def mark_read(user: Any, thread: Thread, number: int) -> None:
    """Remember that the user has read the thread up to post ``number`` (never goes back)."""
    if user is None or not user.is_authenticated or number <= 0:
        return
    number = min(number, thread.post_count)
    updated = ThreadRead.objects.filter(user=user, thread=thread, last_read_number__lt=number).update(
        last_read_number=number, updated=timezone.now()
    )
    if not updated:
        try:
            with transaction.atomic():
                ThreadRead.objects.get_or_create(user=user, thread=thread, defaults={"last_read_number": number})
        except IntegrityError:
            pass


# ---------------------------------------------------------------------------
# Play sessions
# ---------------------------------------------------------------------------
def open_session(user: Any, campaign: Campaign, *, title: str = "") -> PlaySession:
    """The GM opens a play session; posts and rolls made until it closes belong to it."""
    _require_gm(user, campaign)
    if len(title or "") > 120:
        raise ValidationError({"title": [_("At most 120 characters.")]})
    try:
        with transaction.atomic():
            Campaign.objects.select_for_update().filter(pk=campaign.pk).first()
            if PlaySession.objects.filter(campaign=campaign, status=PlaySession.Status.OPEN).exists():
                raise ValidationError({"__all__": [_("A session is already open: close it first.")]})
            last = PlaySession.objects.filter(campaign=campaign).order_by("-number").values_list("number", flat=True)
            session = PlaySession.objects.create(
                campaign=campaign, number=(last.first() or 0) + 1, title=(title or "").strip(), opened_by=user
            )
            publish(f"campaign:{campaign.pk}", "session-opened", {"session": session.pk})
            from rhythm import loop

            loop.session_changed(user, session, opened=True)
    except IntegrityError:
        raise ValidationError({"__all__": [_("A session is already open: close it first.")]}) from None
    return session


def close_session(user: Any, session: PlaySession) -> PlaySession:
    """The GM closes the session; ``campaigns.signals.session_closed`` is sent after commit."""
    campaign = session.campaign
    _require_gm(user, campaign)
    with transaction.atomic():
        updated = PlaySession.objects.filter(pk=session.pk, status=PlaySession.Status.OPEN).update(
            status=PlaySession.Status.CLOSED, closed_at=timezone.now()
        )
        if not updated:
            raise ValidationError({"__all__": [_("This session is already closed.")]})
        session.refresh_from_db()
        dice.rotate_seed(campaign)  # reveal the session's seed, publish the next commitment
        publish(f"campaign:{campaign.pk}", "session-closed", {"session": session.pk})
        from rhythm import loop

        loop.session_changed(user, session, opened=False)
        transaction.on_commit(lambda: session_closed.send(sender=PlaySession, session=session))
    return session


def rotate_roll_seed(user: Any, campaign: Campaign) -> tuple[Any, Any]:
    """A GM reveals the campaign's current dice seed now; the next commitment is published with it."""
    _require_gm(user, campaign)
    with transaction.atomic():
        revealed, current = dice.rotate_seed(campaign)
        if revealed is None:
            raise ValidationError({"__all__": [_("No roll was drawn from the current seed yet: nothing to reveal.")]})
        publish(f"campaign:{campaign.pk}", "seed-revealed", {"seed": revealed.index, "next": current.index})
    return revealed, current


# ---------------------------------------------------------------------------
# Notifications
# ---------------------------------------------------------------------------
def mark_notifications_read(user: Any, ids: Iterable[int] | None = None) -> int:
    qs = Notification.objects.filter(user=user, read_at__isnull=True)
    if ids is not None:
        qs = qs.filter(pk__in=list(ids))
    return qs.update(read_at=timezone.now())


def set_email_digest(user: Any, *, enabled: bool) -> NotificationSettings:
    prefs, _created = NotificationSettings.objects.get_or_create(user=user)
    prefs.email_digest = bool(enabled)
    prefs.save(update_fields=["email_digest"])
    return prefs


__all__ = [
    "Roll",
    "add_board",
    "answer_invitation",
    "cancel_invitation",
    "close_session",
    "create_campaign",
    "create_post",
    "create_thread",
    "decide_join_request",
    "edit_post",
    "hand_over",
    "hide_post",
    "invite_member",
    "join_by_link",
    "leave_campaign",
    "mark_notifications_read",
    "mark_read",
    "move_board",
    "open_session",
    "remove_member",
    "rename_board",
    "request_to_join",
    "reset_invite_link",
    "rotate_roll_seed",
    "set_email_digest",
    "set_member_role",
    "update_campaign",
    "update_thread",
]

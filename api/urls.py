"""API routes: ``/api/v1/...`` (versioned JSON), ``/api/schema/`` (OpenAPI 3),
``/api/docs/`` (browsable docs) and ``/api/tokens/`` (token page)."""

from django.urls import include, path, re_path
from drf_spectacular.views import SpectacularAPIView, SpectacularRedocView, SpectacularSwaggerSplitView

from api import pages
from api.views import account, campaigns, characters, combat, forum, progression, rhythm, systems
from characters import plugins

app_name = "api"


C = "campaigns/<str:campaign>/"

v1 = [
    path("me/", account.MeView.as_view(), name="me"),
    path("me/invitations/", campaigns.MyInvitationListView.as_view(), name="my-invitations"),
    path("me/notifications/", campaigns.NotificationListView.as_view(), name="notifications"),
    path("me/notifications/read/", campaigns.NotificationReadView.as_view(), name="notifications-read"),
    path("me/waiting/", rhythm.WaitingView.as_view(), name="me-waiting"),
    path("me/absences/", rhythm.AbsenceListView.as_view(), name="absences"),
    path("me/absences/<id:absence_id>/", rhythm.AbsenceDetailView.as_view(), name="absence"),
    path("tokens/", account.TokenListView.as_view(), name="tokens"),
    path("tokens/<id:token_id>/", account.TokenDetailView.as_view(), name="token"),
    # Rule systems
    path("systems/", systems.SystemListView.as_view(), name="systems"),
    path("systems/<str:slug>/", systems.SystemDetailView.as_view(), name="system"),
    path("systems/<str:slug>/odds/", systems.SystemOddsView.as_view(), name="system-odds"),
    # Campaigns and members
    path("campaigns/", campaigns.CampaignListView.as_view(), name="campaigns"),
    path(C, campaigns.CampaignDetailView.as_view(), name="campaign"),
    path(C + "members/", campaigns.MembershipListView.as_view(), name="campaign-members"),
    path(C + "members/<id:user_id>/", campaigns.MembershipDetailView.as_view(), name="campaign-member"),
    path(C + "hand-over/", campaigns.HandOverView.as_view(), name="campaign-hand-over"),
    path(C + "invite-link/reset/", campaigns.InviteLinkResetView.as_view(), name="campaign-invite-link-reset"),
    path(C + "join-by-link/", campaigns.JoinByLinkView.as_view(), name="campaign-join-by-link"),
    path(C + "invitations/", campaigns.CampaignInvitationListView.as_view(), name="campaign-invitations"),
    path(C + "join-requests/", campaigns.JoinRequestListView.as_view(), name="campaign-join-requests"),
    path(
        "invitations/<id:invitation_id>/accept/",
        campaigns.InvitationAnswerView.as_view(action="accept"),
        name="invitation-accept",
    ),
    path(
        "invitations/<id:invitation_id>/decline/",
        campaigns.InvitationAnswerView.as_view(action="decline"),
        name="invitation-decline",
    ),
    path(
        "invitations/<id:invitation_id>/cancel/",
        campaigns.InvitationAnswerView.as_view(action="cancel"),
        name="invitation-cancel",
    ),
    path(
        "join-requests/<id:join_request_id>/accept/",
        campaigns.JoinDecisionView.as_view(accept=True),
        name="join-request-accept",
    ),
    path(
        "join-requests/<id:join_request_id>/refuse/",
        campaigns.JoinDecisionView.as_view(accept=False),
        name="join-request-refuse",
    ),
    # Play sessions
    path(C + "sessions/", campaigns.SessionListView.as_view(), name="sessions"),
    path("sessions/<id:session_id>/", campaigns.SessionDetailView.as_view(), name="session"),
    path("sessions/<id:session_id>/close/", campaigns.SessionCloseView.as_view(), name="session-close"),
    # Forum
    path(C + "boards/", forum.BoardListView.as_view(), name="boards"),
    path("boards/<id:board_id>/", forum.BoardDetailView.as_view(), name="board"),
    path("boards/<id:board_id>/threads/", forum.ThreadListView.as_view(), name="threads"),
    path("boards/<id:board_id>/move/", forum.BoardMoveView.as_view(), name="board-move"),
    path("threads/<id:thread_id>/read/", forum.ThreadReadView.as_view(), name="thread-read"),
    path("threads/<id:thread_id>/", forum.ThreadDetailView.as_view(), name="thread"),
    path("threads/<id:thread_id>/posts/", forum.PostListView.as_view(), name="posts"),
    path("threads/<id:thread_id>/scene/", rhythm.SceneView.as_view(), name="scene"),
    path("threads/<id:thread_id>/scene/close-round/", rhythm.CloseRoundView.as_view(), name="scene-close-round"),
    path("threads/<id:thread_id>/scene/nudge/", rhythm.NudgeView.as_view(), name="scene-nudge"),
    path("threads/<id:thread_id>/draft/", rhythm.DraftView.as_view(), name="draft"),
    path("posts/<id:post_id>/", forum.PostDetailView.as_view(), name="post"),
    path("posts/<id:post_id>/hide/", forum.PostHideView.as_view(), name="post-hide"),
    # Rolls
    path(C + "rolls/chain/", forum.RollChainView.as_view(), name="roll-chain"),
    path(C + "rolls/verify/", forum.RollVerifyView.as_view(), name="roll-verify"),
    path(C + "rolls/export/", forum.RollExportView.as_view(), name="roll-export"),
    path(C + "rolls/checkpoint/", forum.RollCheckpointView.as_view(), name="roll-checkpoint"),
    path(C + "rolls/rotate/", forum.RollSeedRotateView.as_view(), name="roll-rotate"),
    path("rolls/<id:roll_id>/", forum.RollDetailView.as_view(), name="roll"),
    path("rolls/<id:roll_id>/lower-die/", forum.RollLowerView.as_view(), name="roll-lower-die"),
    path("rolls/<id:roll_id>/difficulty/", forum.RollDifficultyView.as_view(), name="roll-difficulty"),
    path("rolls/<id:roll_id>/gm-inputs/", forum.RollGmInputsView.as_view(), name="roll-gm-inputs"),
    path(C + "gm-aids/", forum.GmAidsView.as_view(), name="campaign-gm-aids"),
    # Characters
    path(C + "characters/", characters.CharacterListView.as_view(), name="characters"),
    path(C + "characters/import/", characters.CharacterImportView.as_view(), name="characters-import"),
    path("characters/<id:character_id>/", characters.CharacterDetailView.as_view(), name="character"),
    path("characters/<id:character_id>/sheet/", characters.CharacterSheetView.as_view(), name="character-sheet"),
    path(
        "characters/<id:character_id>/sheet-tests/",
        characters.CharacterSheetTestsView.as_view(),
        name="character-sheet-tests",
    ),
    path("characters/<id:character_id>/submit/", characters.submit_view.as_view(), name="character-submit"),
    path("characters/<id:character_id>/approve/", characters.approve_view.as_view(), name="character-approve"),
    path("characters/<id:character_id>/return/", characters.return_view.as_view(), name="character-return"),
    path("characters/<id:character_id>/status/", characters.status_view.as_view(), name="character-status"),
    path("characters/<id:character_id>/history/", characters.CharacterHistoryView.as_view(), name="character-history"),
    path("characters/<id:character_id>/export/", characters.CharacterExportView.as_view(), name="character-export"),
    path("characters/<id:character_id>/portrait/", characters.PortraitView.as_view(), name="character-portrait"),
    path(
        "characters/<id:character_id>/change-requests/",
        characters.ChangeRequestListView.as_view(),
        name="change-requests",
    ),
    path("change-requests/<id:change_id>/", characters.ChangeRequestDetailView.as_view(), name="change-request"),
    path("change-requests/<id:change_id>/approve/", characters.change_approve_view.as_view(), name="change-approve"),
    path("change-requests/<id:change_id>/reject/", characters.change_reject_view.as_view(), name="change-reject"),
    path("change-requests/<id:change_id>/withdraw/", characters.change_withdraw_view.as_view(), name="change-withdraw"),
    path("change-requests/<id:change_id>/comments/", characters.change_comment_view.as_view(), name="change-comment"),
    # Combat
    path("threads/<id:thread_id>/encounters/", combat.EncounterListView.as_view(), name="encounters"),
    path("encounters/<id:encounter_id>/", combat.EncounterDetailView.as_view(), name="encounter"),
    path("encounters/<id:encounter_id>/log/", combat.CombatLogView.as_view(), name="encounter-log"),
    path("encounters/<id:encounter_id>/participants/", combat.ParticipantListView.as_view(), name="participants"),
    *[
        path(
            f"encounters/<id:encounter_id>/{action}/", combat.encounter_action_view(action), name=f"encounter-{action}"
        )
        for action in combat.ACTIONS
    ],
    path("participants/<id:participant_id>/declaration/", combat.DeclarationView.as_view(), name="declaration"),
    path("participants/<id:participant_id>/adjust/", combat.ParticipantAdjustView.as_view(), name="adjust"),
    path("participants/<id:participant_id>/side/", combat.ParticipantSideView.as_view(), name="participant-side"),
    path("participants/<id:participant_id>/remove/", combat.ParticipantRemoveView.as_view(), name="participant-remove"),
    path("declarations/<id:declaration_id>/defence/", combat.DefenceView.as_view(), name="declaration-defence"),
    path(
        "participants/<id:participant_id>/visibility/",
        combat.ParticipantVisibilityView.as_view(),
        name="participant-visibility",
    ),
    # Progression
    path("characters/<id:character_id>/ledger/", progression.LedgerView.as_view(), name="ledger"),
    path("characters/<id:character_id>/balances/", progression.BalancesView.as_view(), name="balances"),
    path("characters/<id:character_id>/purchases/", progression.PurchaseListView.as_view(), name="purchases"),
    path("purchases/<id:purchase_id>/approve/", progression.purchase_decision_view(True), name="purchase-approve"),
    path("purchases/<id:purchase_id>/reject/", progression.purchase_decision_view(False), name="purchase-reject"),
    path("sessions/<id:session_id>/awards/", progression.SessionAwardsView.as_view(), name="awards"),
    path("sessions/<id:session_id>/recalculate/", progression.RecalculateView.as_view(), name="recalculate"),
    path("sessions/<id:session_id>/recap/", progression.SessionRecapView.as_view(), name="recap"),
    path(
        "sessions/<id:session_id>/awards/reopen/", progression.SessionAwardsReopenView.as_view(), name="awards-reopen"
    ),
    # The system plug-ins' routes (systems/<name>/api_urls.py: the auction, the creation roll, templates...)
    *plugins.api_urlpatterns(),
]

urlpatterns = [
    path("v1/", include(v1)),
    path("schema/", SpectacularAPIView.as_view(), name="schema"),
    path("docs/", SpectacularSwaggerSplitView.as_view(url_name="api:schema"), name="docs"),  # no inline script (CSP)
    path("redoc/", SpectacularRedocView.as_view(url_name="api:schema"), name="redoc"),
    path("tokens/", pages.tokens, name="token-page"),
    path("tokens/<id:token_id>/revoke/", pages.revoke, name="token-revoke"),
    re_path(r"^(?P<rest>[\s\S]*)\Z", pages.not_found),  # any character, newlines (%0A) too
]

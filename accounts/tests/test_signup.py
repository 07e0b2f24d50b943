"""Sign-up, confirmation, login and the profile page."""

from __future__ import annotations

import re

import pytest
from django.contrib.auth import get_user_model
from django.core import mail
from django.test import Client


@pytest.mark.django_db
def test_it_shows_field_errors_for_bad_signup_input() -> None:
    client = Client()
    response = client.post(
        "/accounts/signup/",
        {"email": "not-an-email", "username": "a", "password1": "123", "password2": "456"},
        HTTP_ACCEPT_LANGUAGE="fr",
    )
    assert response.status_code == 200
    form = response.context["form"]
    assert "email" in form.errors
    assert "username" in form.errors
    assert "password1" in form.errors or "password2" in form.errors
    assert get_user_model().objects.count() == 0
    # French by default.
    assert "Saisissez une adresse e-mail valide" in response.content.decode()


@pytest.mark.django_db
def test_it_signs_up_and_confirms_by_email() -> None:
    client = Client()
    response = client.post(
        "/accounts/signup/",
        {
            "email": "iris@example.test",
            "username": "iris",
            "password1": "une-phrase-longue-42",
            "password2": "une-phrase-longue-42",
        },
    )
    assert response.status_code == 302
    user = get_user_model().objects.get(username="iris")
    assert user.profile.language == "fr"
    assert len(mail.outbox) == 1
    link = re.search(r"http://\S+/accounts/confirm-email/\S+/", mail.outbox[0].body).group(0)
    path = link.split("testserver", 1)[-1]
    confirm = client.post(path)
    assert confirm.status_code == 302
    assert user.emailaddress_set.get().verified


@pytest.mark.django_db
def test_it_refuses_login_until_the_email_is_confirmed() -> None:
    client = Client()
    client.post(
        "/accounts/signup/",
        {
            "email": "hugo@example.test",
            "username": "hugo",
            "password1": "une-phrase-longue-42",
            "password2": "une-phrase-longue-42",
        },
    )
    other = Client()
    response = other.post("/accounts/login/", {"login": "hugo", "password": "une-phrase-longue-42"})
    assert response.status_code == 302
    assert "confirm-email" in response["Location"]
    assert other.get("/profile/").status_code == 302


@pytest.mark.django_db
def test_it_redirects_anonymous_users_to_login_for_private_pages() -> None:
    response = Client().get("/profile/")
    assert response.status_code == 302
    assert response["Location"].startswith("/accounts/login/")


@pytest.mark.django_db
def test_it_saves_the_profile_language_and_speaks_it() -> None:
    user = get_user_model().objects.create_user("ana", "ana@example.test", "pw-ana-12345")
    client = Client()
    client.force_login(user)
    page = client.get("/profile/")
    assert "Mon profil" in page.content.decode()
    response = client.post("/profile/", {"display_name": "Ana", "language": "en", "bio": ""})
    assert response.status_code == 302
    user.profile.refresh_from_db()
    assert user.profile.language == "en"
    assert user.profile.display_name == "Ana"
    assert "My profile" in client.get("/profile/").content.decode()


@pytest.mark.django_db
def test_it_rejects_an_unknown_language() -> None:
    user = get_user_model().objects.create_user("bob", "bob@example.test", "pw-bob-12345")
    client = Client()
    client.force_login(user)
    response = client.post("/profile/", {"display_name": "Bob", "language": "xx"})
    assert response.status_code == 200
    assert "language" in response.context["form"].errors
    user.profile.refresh_from_db()
    assert user.profile.language == "fr"


@pytest.mark.django_db
def test_it_resets_a_forgotten_password_by_email() -> None:
    from allauth.account.models import EmailAddress

    user = get_user_model().objects.create_user("lea", "lea@example.test", "ancien-mot-de-passe-42")
    EmailAddress.objects.create(user=user, email="lea@example.test", verified=True, primary=True)
    client = Client()
    assert client.post("/accounts/password/reset/", {"email": "lea@example.test"}).status_code == 302
    assert len(mail.outbox) == 1
    link = re.search(r"http://\S+/accounts/password/reset/key/\S+/", mail.outbox[0].body).group(0)
    form_page = client.get(link.split("testserver", 1)[-1], follow=True)
    assert form_page.status_code == 200
    set_url = form_page.redirect_chain[-1][0]
    # Mismatched passwords: a field error, the old password still works.
    bad = client.post(set_url, {"password1": "nouveau-secret-99", "password2": "autre-chose-99"})
    assert bad.status_code == 200 and "password2" in bad.context["form"].errors
    user.refresh_from_db()
    assert user.check_password("ancien-mot-de-passe-42")
    done = client.post(set_url, {"password1": "nouveau-secret-99", "password2": "nouveau-secret-99"})
    assert done.status_code == 302
    user.refresh_from_db()
    assert user.check_password("nouveau-secret-99")
    assert Client().post("/accounts/login/", {"login": "lea", "password": "nouveau-secret-99"}).status_code == 302


@pytest.mark.django_db
def test_it_logs_out_on_post() -> None:
    user = get_user_model().objects.create_user("max", "max@example.test", "mot-de-passe-42")
    client = Client()
    client.force_login(user)
    assert client.post("/accounts/logout/").status_code == 302
    assert client.get("/profile/").status_code == 302  # back to the login page

"""The environment of a child: credentials removed, credential-file paths and pass_env kept."""

from __future__ import annotations

import pytest

from bastion.policy import child_env


@pytest.mark.parametrize(
    ("name", "value"),
    [
        ("PATH", "/usr/bin"),
        ("HOME", "/home/me"),
        ("LANG", "C.UTF-8"),
        ("KEYBOARD", "us"),
        ("TOKENIZERS_PARALLELISM", "false"),
        ("PATH_TOKEN_FILE", "/x"),
        ("PLAIN_URL", "https://example.com/x"),
        ("REGISTRY", "https://user@host/x"),
        ("PG", "postgres://db1"),
        ("GOOGLE_APPLICATION_CREDENTIALS", "/k.json"),
        ("KUBECONFIG", "/k"),
        ("AWS_WEB_IDENTITY_TOKEN_FILE", "/t"),
        ("PGPASSFILE", "/p"),
        ("XDG_RUNTIME_DIR", "/run/user/1"),
        ("ssh_askpass", "/bin/askpass"),
    ],
)
def test_an_ordinary_variable_or_a_credential_file_path_is_kept(name: str, value: str) -> None:
    assert child_env({name: value}) == {name: value}


@pytest.mark.parametrize(
    ("name", "value"),
    [
        ("lower_api_key", "x"),
        ("AWS_SECRET_ACCESS_KEY", "x"),
        ("AWS_ACCESS_KEY_ID", "x"),
        ("DB_PASSWORD_PROD", "x"),
        ("APP_SECRET_KEY_BASE", "x"),
        ("CI_JOB_JWT", "x"),
        ("SERVICE_AUTH", "x"),
        ("MY_CREDENTIALS", "x"),
        ("STRIPE_KEY", "x"),
        ("GITHUB_PAT", "x"),
        ("KEY", "x"),
        ("AUTH", "x"),
        ("SECRET", "x"),
        ("TOKEN", "x"),
        ("DATABASE_URL", "x"),
        ("SSH_AUTH_SOCK", "/tmp/agent"),
        ("DOCKER_HOST", "tcp://build-host:2375"),
        ("docker_host", "ssh://me@build-host"),
        ("CONTAINER_HOST", "ssh://me@host/run/podman/podman.sock"),
        ("MYSQL_PWD", "x"),
        ("GH_TOKEN", "x"),
        ("ANTHROPIC_API_KEY", "x"),
        ("CACHE", "redis://user:hunter2@host"),
        ("MIRROR", "see https://:pw@host/x"),
    ],
)
def test_a_credential_looking_variable_is_scrubbed(name: str, value: str) -> None:
    assert child_env({name: value, "PATH": "/bin"}) == {"PATH": "/bin"}


@pytest.mark.parametrize(
    ("environ", "pass_env", "also_scrub", "kept"),
    [
        ({"GITHUB_TOKEN": "t"}, ["GITHUB_TOKEN"], [], {"GITHUB_TOKEN"}),
        ({"GITHUB_TOKEN": "t"}, ["github_token"], [], set()),
        ({"MODEL_KEY_VAR": "k", "LLM": "k"}, [], ["llm"], {"MODEL_KEY_VAR"}),
        ({"LLM": "k", "HOME": "/h"}, [], ["LLM"], {"HOME"}),
        ({"LLM": "k"}, ["LLM"], ["LLM"], {"LLM"}),
    ],
)
def test_pass_env_keeps_by_exact_name_and_also_scrub_removes_the_keys_variable(
    environ: dict[str, str], pass_env: list[str], also_scrub: list[str], kept: set[str]
) -> None:
    assert set(child_env(environ, pass_env, also_scrub)) == kept


def test_the_environment_given_is_not_changed() -> None:
    environ = {"GITHUB_TOKEN": "t", "HOME": "/h"}
    child_env(environ)
    assert environ == {"GITHUB_TOKEN": "t", "HOME": "/h"}

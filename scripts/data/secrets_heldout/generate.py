#!/usr/bin/env python3
# ruff: noqa: E501  (one memory per literal: long lines are the data)
"""Writes samples.jsonl next to this file: the held-out secrets corpus (issue 24, item 5).

    python scripts/data/secrets_heldout/generate.py

Formats (prefix, alphabet, length) were learnt from public secret scanners' test
fixtures (see README.md); the values here are random with those shapes and grant
nothing, except the few literal scanner samples marked `source: fixture`, which are
the scanners' own published test strings. The memories around them were written for
this corpus: Jenkins notes, .ini and .env lines, YAML, shell, prose.

Each row: {"text", "label": "secret" | "lookalike", "kind", "secret": [str, ...],
"batch": 1 | 2, "half": "dev" | "heldout"}. The half is fixed by a hash of the text (first byte of
its SHA-256 even -> dev), so adding a row never moves another between halves.
"""

from __future__ import annotations

import hashlib
import json
import random
import string
import uuid
from pathlib import Path

HERE = Path(__file__).resolve().parent
R = random.Random(24)

LOWER = string.ascii_lowercase
UPPER = string.ascii_uppercase
DIGITS = string.digits
B62 = LOWER + UPPER + DIGITS
HEX = "0123456789abcdef"
B64 = B62 + "+/"
B64URL = B62 + "_-"
B32 = UPPER + "234567"
BECH32 = "QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L"
LOWER36 = LOWER + DIGITS


def rs(alphabet: str, n: int) -> str:
    return "".join(R.choice(alphabet) for _ in range(n))


def half(text: str) -> str:
    return "dev" if hashlib.sha256(text.encode()).digest()[0] % 2 == 0 else "heldout"


rows: list[dict[str, object]] = []
BATCH = 1


def secret(kind: str, template: str, *values: str) -> None:
    text = template.format(*values)
    rows.append(
        {"text": text, "label": "secret", "kind": kind, "secret": list(values), "batch": BATCH}
    )


def lookalike(kind: str, text: str) -> None:
    rows.append({"text": text, "label": "lookalike", "kind": kind, "secret": [], "batch": BATCH})


def akia() -> str:
    return R.choice(["AKIA", "ASIA"]) + rs(UPPER + DIGITS, 16)


def aws_secret() -> str:
    return rs(B64, 40)


# --- secrets ---------------------------------------------------------------------------

# AWS
secret(
    "aws-access-key-id", "Jenkins job deploy-prod uses credentials {0} (jenkins-aws-prod).", akia()
)
secret("aws-access-key-id", "jenkins: withAWS(credentials: 'x') failed, key id was {0}", akia())
secret("aws-access-key-id", "The build log printed aws_access_key_id={0} in step 4.", akia())
secret("aws-access-key-id", "[default]\naws_access_key_id={0}", akia())
secret("aws-access-key-id", "- name: AWS_ACCESS_KEY_ID\n  value: {0}", akia())
secret(
    "aws-access-key-id",
    "fixture key AKIALALEMEL33243OLIB leaked in the old branch".replace("{", "{{"),
)
rows[-1]["secret"] = ["AKIALALEMEL33243OLIB"]
secret("aws-secret-key", "aws creds for the nightly job: {0} / {1}", akia(), aws_secret())
secret("aws-secret-key", "{0}:{1} is the pair the importer uses", akia(), aws_secret())
secret("aws-secret-key", "AWS key {0} with secret {1} (uploader)", akia(), aws_secret())
secret("aws-secret-key", 'export AWS_SECRET_ACCESS_KEY="{0}"', aws_secret())
secret("aws-secret-key", "id {0}\nkey {1}", akia(), aws_secret())
# Mailgun
secret("mailgun-key", "Mailgun sending works with {0} on mg.acme.io", "key-" + rs(LOWER36, 32))
secret("mailgun-key", "MAILGUN_API_KEY={0}", "key-" + rs(HEX, 32))
secret(
    "mailgun-key",
    "mailgun signing key: {0}",
    rs(HEX[:8] + DIGITS, 32) + "-" + rs(HEX[:8], 8) + "-" + rs(HEX[:8], 8),
)
secret("mailgun-key", "api = Mailgun(api_key='{0}')", "key-" + rs(LOWER36, 32))
# age
secret("age-secret-key", "sops age identity: {0}", "AGE-SECRET-KEY-1" + rs(BECH32, 58))
secret(
    "age-secret-key",
    "# created: 2024-01-01\n# public key: age1xyz\n{0}",
    "AGE-SECRET-KEY-1" + rs(BECH32, 58),
)
secret(
    "age-secret-key",
    "the age test identity {0} decrypts the fixtures",
    "AGE-SECRET-KEY-1" + "Q" * 58,
)
# Artifactory / JFrog
secret("artifactory", "artifactory api key for CI: {0}", "AKCp" + rs(B62, 69))
secret("artifactory", "ARTIFACTORY_PASSWORD={0}", "AP" + rs("0123456789ABCDEF", 1) + rs(B62, 8))
secret("artifactory", "jfrog identity token {0} for the npm remote", rs(B62, 64))
secret("artifactory", "helm install --set imagePullSecretJfrog.password={0}", rs(B62, 73))
secret("artifactory", "X-JFrog-Art-Api: {0}", "AKCp" + rs(B62, 69))
# Cloudflare
secret("cloudflare", "CLOUDFLARE_ORIGIN_CA: {0}", "v1.0-" + rs(HEX, 24) + "-" + rs(HEX, 146))
secret(
    "cloudflare", "origin ca key {0} in certbot's ini", "v1.0-" + rs(HEX, 24) + "-" + rs(HEX, 146)
)
secret("cloudflare", 'cloudflare_api_key = "{0}"', rs(B62 + "_-", 40))
secret("cloudflare", "cloudflare global key {0} (legacy)", rs(HEX, 37))
secret("cloudflare", "CF_API_TOKEN: {0}", rs(B62 + "_-", 40))
# MaxMind
secret("maxmind", "GeoIP updates need license {0}", rs(B62, 6) + "_" + rs(B62, 29) + "_mmk")
secret("maxmind", "MAXMIND_LICENSE_KEY={0}", rs(B62, 6) + "_" + rs(B62, 29) + "_mmk")
secret(
    "maxmind",
    "maxmind sample license 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 from the scanner tests",
)
rows[-1]["secret"] = ["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"]
# high entropy in .ini / .env lines under a name that does not say "secret"
secret("ini-entropy", "[service]\nhost = api.internal\nauth_blob = {0}", rs(B62, 32))
secret("ini-entropy", "settings.ini:\n[upload]\nsignature_value = {0}", rs(B64, 44))
secret("ini-entropy", "[mail]\nsmtp_cred = {0}", rs(B62, 24))
secret("env-entropy", "STRIPE_SK={0}", rs(B62, 32))
secret("env-entropy", ".env: SENTRY_DSN_KEY={0}", rs(HEX, 32))
secret("env-entropy", "SIGNING_SALT={0} in the prod .env", rs(B62 + "!@#%^&*", 30))
secret("env-entropy", "APP_KEY=base64:{0}", rs(B64, 43) + "=")
secret("env-entropy", "echo 'MAPS_CLIENT={0}' >> .env", rs(B64URL, 28))
# passwords in prose
secret("password-prose", "the staging db password is {0}", "Zq8!vLm2#Rt5")
secret("password-prose", "staging db pass: {0}", "Zq8vLm2Rt5xx")
secret(
    "password-prose", "The wifi password is {0} for the office.", rs(B62, 5) + "!" + rs(DIGITS, 3)
)
secret("password-prose", "root pw {0} on the old box", rs(B62, 10))
secret("password-prose", "pwd {0} for the admin panel", rs(B62, 4) + "#" + rs(B62, 5))
secret("password-prose", "Login as admin with password {0}.", rs(LOWER, 6) + rs(DIGITS, 3))
secret("password-prose", "password for grafana: {0}", rs(B62, 12))
secret(
    "password-prose",
    "the vpn passphrase was {0}",
    rs(LOWER, 5) + "-" + rs(DIGITS, 2) + "-" + rs(LOWER, 5),
)
secret("password-prose", "redis requirepass {0}", rs(B62, 16))
secret("password-prose", "sudo password: {0} (change after onboarding)", rs(B62, 9) + "$")
secret("password-prose", "Jenkins admin / {0} on ci.internal", rs(B62, 6) + "@" + rs(DIGITS, 2))
secret("password-prose", "mysql -u root --password={0} app", rs(B62, 11))
# other vendor formats
secret("datadog", "datadog api key {0}", rs(HEX, 32))
secret("datadog", "DD_APP_KEY={0}", rs(HEX, 40))
secret(
    "dynatrace",
    "dynatrace token {0}",
    "dt0c01." + rs(UPPER + DIGITS, 24) + "." + rs(UPPER + DIGITS, 64),
)
secret("adafruit", "adafruit io key {0}", "aio_" + rs(B62, 28))
secret("airtable", "airtable pat {0}", "pat" + rs(B62, 14) + "." + rs(HEX, 64))
secret("algolia", "ALGOLIA_ADMIN_KEY={0}", rs(HEX, 32))
secret("clojars", "deploy with {0}", "CLOJARS_" + rs(LOWER36, 60))
secret("dropbox", "dropbox short-lived token {0}", "sl." + rs(B64URL, 135))
secret("duffel", "duffel token {0}", "duffel_test_" + rs(B64URL, 43))
secret("easypost", "EASYPOST_API_KEY={0}", "EZAK" + rs(LOWER36, 54))
secret("facebook", "fb page token {0}", "EAAC" + rs(B62, 120))
secret("flutterwave", "flutterwave secret {0}", "FLWSECK_TEST-" + rs(HEX, 32) + "-X")
secret("frameio", "frame.io token {0}", "fio-u-" + rs(B64URL, 64))
secret(
    "harness", "harness PAT {0}", "pat." + rs(B64URL, 22) + "." + rs(B62, 24) + "." + rs(B62, 20)
)
secret("hubspot", "hubspot private app {0}", "pat-na1-" + str(uuid.UUID(int=R.getrandbits(128))))
secret("infracost", "INFRACOST_API_KEY={0}", "ico-" + rs(B62, 32))
secret("mailchimp", "mailchimp key {0}", rs(HEX, 32) + "-us" + rs(DIGITS, 2))
secret("newrelic", "new relic browser key {0}", "NRJS-" + rs(HEX, 19))
secret("prefect", "PREFECT_API_KEY={0}", "pnu_" + rs(B62, 36))
secret("readme", "readme.io key {0}", "rdme_" + rs(LOWER36, 70))
secret("rubygems", "GEM_HOST_API_KEY: {0}", "rubygems_" + rs(HEX, 48))
secret("scalingo", "scalingo token {0}", "tk-us-" + rs(B64URL, 48))
secret("sendinblue", "brevo key {0}", "xkeysib-" + rs(HEX, 64) + "-" + rs(B62, 16))
secret("shippo", "shippo {0}", "shippo_live_" + rs(HEX, 40))
secret("sonarqube", "sonar.token={0}", "squ_" + rs(HEX, 40))
secret("typeform", "typeform pat {0}", "tfp_" + rs(B62 + "_-", 59))
secret("alibaba", "aliyun access key {0}", "LTAI" + rs(B62, 20))
secret("adobe", "adobe client secret {0}", "p8e-" + rs(B62, 32))
secret("langsmith", "LANGCHAIN_API_KEY={0}", "lsv2_pt_" + rs(HEX, 32) + "_" + rs(HEX, 10))
secret("okta", "okta api token {0}", "00" + rs(B62 + "_-", 40))
secret("twitch", "twitch client secret {0}", rs(LOWER36, 30))
secret("kubernetes", "apiVersion: v1\nkind: Secret\ndata:\n  password: {0}", rs(B64, 32))
secret("django", "SECRET_KEY = 'django-insecure-{0}'", rs(LOWER36 + "!@#$%^&*(-_=+)", 50))
secret("npm", "//registry.npmjs.org/:_authToken={0}", str(uuid.UUID(int=R.getrandbits(128))))
secret("heroku", "HEROKU_API_KEY={0}", str(uuid.UUID(int=R.getrandbits(128))))
secret("generic", "the webhook signing secret for billing is {0}", rs(B62, 32))
secret("generic", "client_secret: {0}", rs(B62 + "~._-", 34))
secret("generic", "x-api-key: {0}", rs(B62, 40))
secret("generic", "curl -H 'X-Auth-Token: {0}' https://api.internal", rs(HEX, 32))
secret("generic", "Jenkins credential 'deploy' holds {0}", rs(B62, 36))
secret("generic", "encryption key {0} for the backups", rs(B64, 44))
secret("generic", "gitlab ci variable SLACK_HOOK_SECRET={0}", rs(B62, 24))
secret(
    "generic",
    "license: {0} (paid plan)",
    rs(UPPER + DIGITS, 5)
    + "-"
    + rs(UPPER + DIGITS, 5)
    + "-"
    + rs(UPPER + DIGITS, 5)
    + "-"
    + rs(UPPER + DIGITS, 5),
)
secret("generic", '{{"apiKey": "{0}", "region": "eu"}}', rs(B62, 32))

# --- look-alikes ---------------------------------------------------------------------

lookalike("doc-example", "tests/test_s3.py uses AKIAIOSFODNN7EXAMPLE as a fake key id.")
lookalike(
    "doc-example",
    "moto fixture: aws_access_key_id='AKIAIOSFODNN7EXAMPLE', aws_secret_access_key='wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY'",
)
lookalike(
    "doc-example",
    "AKIAI44QH8DHBEXAMPLE and je7MtGbClwBF/2Zp9Utk/h3yCo8nvbEXAMPLEKEY are the second AWS docs pair",
)
lookalike(
    "doc-example",
    "The jwt.io sample eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4gRG9lIiwiaWF0IjoxNTE2MjM5MDIyfQ.SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c is in the auth tests.",
)
lookalike(
    "doc-example", "stripe docs: use a test key like sk_test_xxxxxxxxxxxxxxxxxxxxxxxx in examples"
)
lookalike("doc-example", "export API_KEY=your-api-key-here")
lookalike("doc-example", "DATABASE_URL=postgres://user:pass@localhost/db is the README's template")
lookalike("doc-example", 'password = "<PASSWORD>" in config.sample.ini')
lookalike("pragma", f'test_key = "{rs(B62, 32)}"  # pragma: allowlist secret')
lookalike("pragma", f"FAKE_TOKEN = 'ghp_{rs(B62, 36)}'  # pragma: allowlist secret")
lookalike("pragma", f"secret = {rs(B64, 40)} # pragma: allowlist secret (fixture)")
lookalike("pragma", f"password='{rs(B62, 12)}'  # pragma: allowlist secret")
lookalike("pragma", f'AWS_ACCESS_KEY_ID = "AKIA{rs(B32, 16)}"  # pragma: allowlist secret')
lookalike("pragma", f"mailgun test key key-{rs(HEX, 32)}  # pragma: allowlist secret")
for _ in range(4):
    lookalike("git-sha", f"bisect points at {rs(HEX, 40)}; revert it")
lookalike("git-sha", f"COMMIT_SHA={rs(HEX, 40)}")
lookalike("git-sha", f"git show {rs(HEX, 12)} --stat")
lookalike("git-sha", f"[build]\nrevision = {rs(HEX, 40)}")
for _ in range(3):
    lookalike("uuid", f"job id {uuid.UUID(int=R.getrandbits(128))} is stuck in pending")
lookalike("uuid", f"PROJECT_ID={uuid.UUID(int=R.getrandbits(128))}")
lookalike("uuid", f"correlation_id: {uuid.UUID(int=R.getrandbits(128))}")
lookalike(
    "base64-image",
    "icon: data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==",
)
lookalike(
    "base64-image",
    "background: url(data:image/gif;base64,R0lGODlhAQABAIAAAAAAAP///yH5BAEAAAAALAAAAAABAAEAAAIBRAA7)",
)
lookalike(
    "base64-image",
    '<img src="data:image/svg+xml;base64,PHN2ZyB4bWxucz0iaHR0cDovL3d3dy53My5vcmcvMjAwMC9zdmciLz4=">',
)
lookalike("hash", f"sha256sum: {rs(HEX, 64)}  dist/app.tar.gz")
lookalike("hash", f'"integrity": "sha512-{rs(B64, 86)}=="')
lookalike("hash", f"md5 {rs(HEX, 32)} matches the upstream tarball")
lookalike("hash", f'etag: "{rs(HEX, 32)}"')
lookalike("hash", f"image: ghcr.io/acme/api@sha256:{rs(HEX, 64)}")
lookalike(
    "hash",
    f'yarn.lock: resolved "https://registry.yarnpkg.com/left-pad/-/left-pad-1.3.0.tgz#{rs(HEX, 40)}"',
)
lookalike("public-key", f"ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAI{rs(B64, 43)} dev@laptop")
lookalike("public-key", f"age recipient (public): age1{rs(BECH32.lower(), 58)}")
lookalike("public-key", f"Stripe publishable key pk_test_{rs(B62, 24)} goes in the frontend bundle")
lookalike("identifier", "CloudflareOriginCertificateAuthorityClient handles renewal")
lookalike("identifier", "MaxMindGeoLite2CountryDatabaseReader is loaded once")
lookalike("identifier", "ArtifactoryRepositoryVirtualResolverV2 picks the remote")
lookalike("url", "https://github.com/acme/app/blob/3f9a1c2b7d/src/auth/session_token_store.py#L42")
lookalike("url", "https://docs.aws.amazon.com/IAM/latest/UserGuide/id_credentials_access-keys.html")
lookalike("url", f"https://youtu.be/{rs(B64URL, 11)}?t=42 explains the token flow")
lookalike("prose-password", "the password policy is strict: 14 characters minimum")
lookalike("prose-password", "password reset flow sends a signed link")
lookalike("prose-password", "The password is stored as an argon2id hash.")
lookalike("prose-password", "pass: see 1Password vault 'staging'")
lookalike("prose-password", "the password is in the team vault, not here")
lookalike("prose-password", "the db password is rotated weekly by the operator")
lookalike("prose-password", "Passwords are hashed with bcrypt (cost 12).")
lookalike("prose-password", "pwd shows /home/dev/src/enyal in the hook's env")
lookalike("prose-password", "The password was changed yesterday after the audit.")
lookalike("config", "max_retries = 5\ntimeout_seconds = 30\nlog_level = debug")
lookalike("config", "NODE_ENV=production\nPORT=8080\nLOG_FORMAT=json")
lookalike("config", "version: 2.14.0-rc.3+build.20240501.abcdef")
lookalike("config", "[paths]\ncache_dir = /var/cache/enyal/models/all-MiniLM-L6-v2")
lookalike("config", "GOOGLE_CLIENT_ID=1234567890-abcdefghijklmnop.apps.googleusercontent.com")
lookalike("config", "font-family: 'JetBrainsMonoNerdFontComplete', monospace")
lookalike("config", "trace_id=4bf92f3577b34da6a3ce929d0e0e4736 span_id=00f067aa0ba902b7")

# --- batch 2: written after the rules were tuned on batch 1, evaluated once -------------
# (README: "Batch 2"). Other services and other ways of writing them down.
BATCH = 2

secret(
    "slack-webhook",
    "alerts:\n  slack_url: https://hooks.slack.com/services/T{0}",
    rs(UPPER + DIGITS, 8) + "/B" + rs(UPPER + DIGITS, 10) + "/" + rs(B62, 24),
)
secret("gitlab", "CI_JOB_TOKEN is not enough, use {0} for the registry", "glpat-" + rs(B64URL, 20))
secret(
    "github",
    "git remote set-url origin https://x-access-token:{0}@github.com/acme/app.git",
    "ghs_" + rs(B62, 36),
)
secret("npmrc", "~/.npmrc has //npm.pkg.github.com/:_authToken={0}", "ghp_" + rs(B62, 36))
secret(
    "pypirc",
    "[pypi]\nusername = __token__\npassword = {0}",
    "pypi-AgEIcHlwaS5vcmc" + rs(B64URL, 70),
)
secret(
    "docker-config", '{{"auths": {{"registry.acme.io": {{"auth": "{0}"}}}}}}', rs(B64, 40) + "=="
)
secret("kubeconfig", "users:\n- name: ci\n  user:\n    token: {0}", rs(B62, 48))
secret(
    "azure-conn",
    "AZURE_STORAGE_CONNECTION_STRING=DefaultEndpointsProtocol=https;AccountName=acmeprod;AccountKey={0};EndpointSuffix=core.windows.net",
    rs(B64, 86) + "==",
)
secret(
    "postgres-url",
    "docker-compose: DATABASE_URL: postgresql://app:{0}@postgres:5432/app",
    rs(B62, 14),
)
secret(
    "basic-auth",
    "curl -H 'Authorization: Basic {0}' https://jenkins.acme.io/api/json",
    rs(B64, 28) + "=",
)
secret("bearer", "the webhook sends Authorization: Bearer {0}", rs(B62, 40))
secret("twilio", "TWILIO_AUTH_TOKEN={0}", rs(HEX, 32))
secret("sendgrid", "SENDGRID_API_KEY={0}", "SG." + rs(B64URL, 22) + "." + rs(B64URL, 43))
secret("stripe", "billing uses {0} (restricted, live)", "rk_live_" + rs(B62, 24))
secret("openai", "OPENAI_API_KEY={0} for the eval job", "sk-proj-" + rs(B64URL, 48))
secret("anthropic", "claude key {0}", "sk-ant-api03-" + rs(B64URL, 93) + "AA")
secret(
    "private-key",
    "deploy key:\n-----BEGIN OPENSSH PRIVATE KEY-----\n{0}\n-----END OPENSSH PRIVATE KEY-----",
    rs(B64, 70),
)
secret("password-prose", "use {0} as the password for the staging vpn", rs(B62, 10) + "!")
secret("password-prose", "The password for the ops vault: `{0}`", rs(B62, 11))
secret("password-prose", "Credentials for the test tenant: ops@acme.io / {0}", rs(B62, 9) + "#1")
secret("password-prose", "new wifi pw is {0}", rs(LOWER, 6) + rs(DIGITS, 4))
secret("password-prose", "db password => {0}", rs(B62, 12))
secret("password-prose", "PGPASSWORD={0} psql -h db -U app", rs(B62, 12))
secret("password-prose", "I reset root's password to {0} after the incident", rs(B62, 10) + "%")
secret("env-entropy", "FIREBASE_CONFIG_KEY={0}", "AIza" + rs(B64URL, 35))
secret("env-entropy", "export ENCRYPTION_MASTER={0}", rs(B64, 44))
secret("env-entropy", "SESSION_COOKIE_SEAL: {0}", rs(B62, 32))
secret("ini-entropy", "[smtp]\nrelay = mail.acme.io\nlogin_blob = {0}", rs(B62 + "+/", 28))
secret("ini-entropy", "[s3]\naccess = {0}\nprivate = {1}", "AKIA" + rs(B32, 16), rs(B64, 40))
secret("yaml-entropy", "webhook:\n  signing: {0}", rs(B62, 40))
secret(
    "generic",
    "Jenkins credential jenkins-github holds the PAT {0}",
    "github_pat_" + rs(B62, 22) + "_" + rs(B62, 59),
)
secret("generic", "Bitbucket app password {0} for the mirror job", "ATBB" + rs(B62, 32))
secret("generic", "the sentry auth token is {0}", "sntrys_" + rs(B64URL, 60))
secret("generic", "linear key {0} lives in 1password now", "lin_api_" + rs(B62, 40))
secret("generic", "hf token {0} for the gated model", "hf_" + rs(B62, 34))
secret("generic", "vault token {0} expires friday", "hvs." + rs(B64URL, 90))
secret("generic", "pulumi access token {0}", "pul-" + rs(HEX, 40))
secret("generic", "doppler service token {0}", "dp.st.prd." + rs(B62, 40))
secret("generic", "new relic license key {0}", rs(HEX, 36) + "NRAL")
secret("generic", "the shared secret between gateway and api is {0}", rs(B62 + "-_", 36))
secret("generic", "grafana token {0}", "glsa_" + rs(B62, 32) + "_" + rs(HEX, 8))
secret("generic", "gitlab runner token {0}", "glrt-" + rs(B64URL, 20))
secret("generic", "supabase service key {0}", "sbp_" + rs(HEX, 40))
secret("generic", "figma pat {0}", "figd_" + rs(B64URL, 40))

lookalike(
    "doc-example",
    "the Slack docs show https://hooks.slack.com/services/T00000000/B00000000/XXXXXXXXXXXXXXXXXXXXXXXX",
)
lookalike("doc-example", "export GITHUB_TOKEN=ghp_xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx  # replace")
lookalike("doc-example", "OPENAI_API_KEY=sk-... goes in .env.example")
lookalike("doc-example", "password: ${{ secrets.DB_PASSWORD }} in the workflow")
lookalike("pragma", f"API_SECRET = '{rs(B62, 40)}'  # pragma: allowlist secret")
lookalike("pragma", f"# pragma: allowlist nextline secret\nfixture_key = {rs(B64, 44)}")
lookalike("git-sha", f"git log -1 --format=%H prints {rs(HEX, 40)}")
lookalike("git-sha", f"GIT_COMMIT: {rs(HEX, 40)}")
lookalike(
    "uuid", f"trace: {uuid.UUID(int=R.getrandbits(128))} -> {uuid.UUID(int=R.getrandbits(128))}"
)
lookalike("hash", f"docker images --digests shows sha256:{rs(HEX, 64)}")
lookalike("hash", f"go.sum: github.com/acme/lib v1.2.3 h1:{rs(B64, 43)}=")
lookalike("hash", f'subresource integrity="sha384-{rs(B64, 64)}"')
lookalike(
    "base64-image",
    "favicon: data:image/x-icon;base64,AAABAAEAEBAAAAEAIABoBAAAFgAAACgAAAAQAAAAIAAAAAEAIAAAAAAAAAQAABMLAAATCwAA",
)
lookalike("prose-password", "the password must be rotated every 90 days")
lookalike("prose-password", "pass the --password flag only in CI")
lookalike("prose-password", "admin / settings / security is where passwords are reset")
lookalike("prose-password", "password123 is on every breach list, so the validator rejects it")
lookalike("prose-password", "the pass@1 score went from 0.41 to 0.47")
lookalike("config", "LOG_LEVEL=info\nWORKERS=4\nTIMEOUT=30")
lookalike("config", "image: ghcr.io/acme/api:2024.05.01-3f9a1c2")
lookalike("config", 'cache_key: v2-deps-{{ checksum "poetry.lock" }}')
lookalike("identifier", "SecretsManagerRotationLambdaV2Handler rotates the keys")
lookalike("identifier", "useAuthTokenRefreshInterceptor2 lives in src/hooks")
lookalike(
    "url", "https://console.aws.amazon.com/iam/home#/users/deploy-bot?section=security_credentials"
)
lookalike("url", "see https://gitleaks.io/docs/rules for the rule list")

for r in rows:
    r["half"] = half(str(r["text"]))
    assert all(s in str(r["text"]) for s in r["secret"]), r  # type: ignore[attr-defined]

(HERE / "samples.jsonl").write_text(
    "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8"
)
if __name__ == "__main__":
    from collections import Counter

    print(Counter((r["label"], r["half"]) for r in rows))

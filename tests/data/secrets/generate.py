#!/usr/bin/env python3
"""Writes positives.jsonl and benign.jsonl next to this file (issue 10, secrets).

    python tests/data/secrets/generate.py

Every secret is random with the right shape (prefix, alphabet, length) and grants
nothing: checksummed formats (GitHub's CRC32 tail, JWT signatures) are not valid.
The seed is fixed so the committed files are reproducible; edit the templates, rerun,
commit both files.

positives: {"text", "kinds": [kind, ...], "secret": str | [str, ...]} — each secret
substring must be gone from the redacted text and each kind reported.
benign: {"text", "why"} — must come back unchanged.
"""

from __future__ import annotations

import base64
import json
import random
import string
import uuid
from pathlib import Path

HERE = Path(__file__).resolve().parent
R = random.Random(10)

LOWER = string.ascii_lowercase
UPPER = string.ascii_uppercase
DIGITS = string.digits
B62 = LOWER + UPPER + DIGITS
HEX = "0123456789abcdef"
B64 = B62 + "+/"
B64URL = B62 + "_-"
B32 = UPPER + "234567"


def rs(alphabet: str, n: int) -> str:
    return "".join(R.choice(alphabet) for _ in range(n))


def mixed(n: int) -> str:
    """A password a person or a generator would pick: letters, digits, a symbol."""
    core = rs(B62, n - 2)
    return core[: n // 2] + R.choice(DIGITS) + R.choice("!#%^*+-_~") + core[n // 2 :]


def b64u(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def uid() -> str:
    return str(uuid.UUID(int=R.getrandbits(128), version=4))


def key_body(lines: int) -> list[str]:
    return [rs(B64, 64) for _ in range(lines)]


def jwt() -> str:
    head = b64u(b'{"alg":"HS256","typ":"JWT"}')
    sub = R.randint(10**5, 10**6)
    body = b64u(
        json.dumps({"sub": str(sub), "exp": R.randint(1.7e9, 1.8e9), "jti": rs(HEX, 16)}).encode()
    )
    return f"{head}.{body}.{rs(B64URL, 43)}"


positives: list[dict[str, object]] = []


def pos(text: str, kinds: list[str], secret: str | list[str]) -> None:
    positives.append({"text": text, "kinds": kinds, "secret": secret})


# --- cloud ------------------------------------------------------------------------------
for prefix, sentence in (
    ("AKIA", "The CI deploy user's access key id is {s}; rotate it after the audit."),
    ("AKIA", "boto3 picked up {s} from ~/.aws/credentials instead of the SSO profile."),
    ("ASIA", "Temporary STS credentials start with ASIA, e.g. {s} from assume-role."),
):
    s = prefix + rs(B32, 16)
    pos(sentence.format(s=s), ["aws-access-key-id"], s)
for sentence in (
    "aws_secret_access_key = {s} lives in the shared credentials file on the runner.",
    "Set AWS_SECRET_ACCESS_KEY={s} in the staging env to make the upload work.",
):
    s = rs(B64, 40)
    pos(sentence.format(s=s), ["aws-secret-key"], s)
kid, sec = "AKIA" + rs(B32, 16), rs(B64, 40)
pos(
    f"Local .env for the backup job: AWS_ACCESS_KEY_ID={kid} AWS_SECRET_ACCESS_KEY={sec}",
    ["aws-access-key-id", "aws-secret-key"],
    [kid, sec],
)
for _ in range(2):
    body = key_body(3)
    key_id = rs(HEX, 40)
    sa = (
        '{"type": "service_account", "project_id": "acme-prod-381", "private_key_id": "'
        + key_id
        + '", "private_key": "-----BEGIN PRIVATE KEY-----\\n'
        + "\\n".join(body)
        + '\\n-----END PRIVATE KEY-----\\n", '
        + '"client_email": "ci@acme-prod-381.iam.gserviceaccount.com"}'
    )
    pos(
        f"The BigQuery loader authenticates with this key file: {sa}",
        ["gcp-service-account"],
        [key_id, *body],
    )
for sentence in (
    "Maps embed on the landing page uses GOOGLE_MAPS_KEY {s} (restricted to our domain).",
    "Gemini calls in the eval harness go through key {s}.",
):
    s = "AIza" + rs(B64URL, 35)
    pos(sentence.format(s=s), ["gcp-api-key"], s)
s = "GOCSPX-" + rs(B64URL, 28)
pos(f"OAuth client for the admin console: client secret {s}", ["gcp-oauth-secret"], s)
s = "ya29." + rs(B64URL, 120)
pos(f"gcloud auth print-access-token gave {s} which expires in an hour.", ["gcp-oauth-token"], s)
for _ in range(2):
    s = rs(B64, 86) + "=="
    pos(
        "Blob storage for logs: DefaultEndpointsProtocol=https;AccountName=acmelogs"
        f"{R.randint(1, 9)};AccountKey={s};EndpointSuffix=core.windows.net",
        ["azure-storage-key"],
        s,
    )
s = rs(B64, 43) + "="
pos(
    "Service Bus: Endpoint=sb://acme-events.servicebus.windows.net/;SharedAccessKeyName="
    f"RootManageSharedAccessKey;SharedAccessKey={s}",
    ["azure-storage-key"],
    s,
)
s = rs(B62, 20) + "%2B" + rs(B62, 20) + "%3D"
pos(
    "Read-only SAS for the export bucket: https://acmeexports.blob.core.windows.net/out/"
    f"report.csv?sv=2022-11-02&ss=b&srt=o&sp=r&se=2025-01-01T00:00:00Z&sig={s}",
    ["azure-sas-token"],
    s,
)
for sentence in (
    "App registration enyal-ci uses client secret {s} (expires in 6 months).",
    "AZURE_CLIENT_SECRET={s} is what the terraform provider reads.",
):
    s = rs(B62, 3) + R.choice(DIGITS) + "Q~" + rs(B62 + "_~.-", 34)
    pos(sentence.format(s=s), ["azure-client-secret"], s)

# --- version control --------------------------------------------------------------------
for prefix, sentence in (
    ("ghp", "My GitHub PAT for the release script is {s}."),
    ("ghp", "export GITHUB_TOKEN={s}  # needed by gh release upload"),
    ("gho", "The OAuth app handed back {s} after the device flow."),
    ("ghu", "User-to-server token {s} came from the GitHub App install."),
    ("ghs", "Actions exposes the installation token {s} as GITHUB_TOKEN in the job."),
    ("ghr", "Refresh with {s} when the ghu token expires after 8 hours."),
):
    s = f"{prefix}_" + rs(B62, 36)
    pos(sentence.format(s=s), ["github-token"], s)
for sentence in (
    "Fine-grained PAT scoped to acme/api: {s}",
    "gh auth login --with-token <<< {s}",
):
    s = "github_pat_" + rs(B62, 22) + "_" + rs(B62, 59)
    pos(sentence.format(s=s), ["github-token"], s)
for prefix, sentence in (
    ("glpat-", "GitLab personal access token for the mirror job: {s}"),
    ("glpat-", "git clone https://oauth2:{s}@gitlab.com/acme/infra.git worked."),
    ("gldt-", "Deploy token for the registry pull: {s}"),
    ("glrt-", "Runner registered with authentication token {s} on the build box."),
):
    s = prefix + rs(B64URL, 20)
    kinds = ["gitlab-token"]
    pos(sentence.format(s=s), kinds, s)
s = "ATBB" + rs(B62, 32)
pos(f"Bitbucket app password for the CI user: {s}", ["bitbucket-token"], s)

# --- chat -------------------------------------------------------------------------------
for prefix, sentence in (
    ("xoxb", "Slack bot token for #deploys notifications: {s}"),
    ("xoxp", "SLACK_USER_TOKEN={s} lets the script post as me."),
):
    s = f"{prefix}-{rs(DIGITS, 11)}-{rs(DIGITS, 13)}-{rs(B62, 24)}"
    pos(sentence.format(s=s), ["slack-token"], s)
for prefix in ("xoxa-2", "xoxr"):
    s = f"{prefix}-{rs(DIGITS, 11)}-{rs(DIGITS, 12)}-{rs(HEX, 32)}"
    pos(f"Legacy Slack workspace token {s} still works for the archive bot.", ["slack-token"], s)
s = f"xapp-1-A{rs(UPPER + DIGITS, 10)}-{rs(DIGITS, 13)}-{rs(HEX, 64)}"
pos(f"Socket mode needs the app-level token {s}.", ["slack-token"], s)
for _ in range(2):
    path = f"T{rs(UPPER + DIGITS, 8)}/B{rs(UPPER + DIGITS, 10)}/{rs(B62, 24)}"
    pos(
        f"Alerts go to https://hooks.slack.com/services/{path} (channel #oncall).",
        ["slack-webhook"],
        path.split("/")[-1],
    )
for sentence in (
    "Discord bot token for the release announcer: {s}",
    "DISCORD_TOKEN={s} in the bot's fly secrets.",
):
    s = "MT" + rs(B64URL, 24) + "." + rs(B64URL, 6) + "." + rs(B64URL, 38)
    pos(sentence.format(s=s), ["discord-token"], s)
hook = rs(B64URL, 68)
pos(
    f"Build failures post to https://discord.com/api/webhooks/{rs(DIGITS, 18)}/{hook}",
    ["discord-webhook"],
    hook,
)
for sentence in (
    "Telegram bot @acme_alerts_bot token: {s}",
    "TELEGRAM_BOT_TOKEN={s} and chat id -1001234567890.",
):
    s = f"{rs(DIGITS, 10)}:AA{rs(B64URL, 33)}"
    pos(sentence.format(s=s), ["telegram-bot-token"], s)

# --- payment and SaaS -------------------------------------------------------------------
for prefix, kind, sentence in (
    ("sk_live_", "stripe-key", "Stripe live secret key: {s} — never use it in tests."),
    ("sk_test_", "stripe-key", "The test-mode key {s} is enough for the checkout e2e."),
    ("rk_live_", "stripe-key", "Restricted key for the reporting job: {s}"),
    ("whsec_", "stripe-webhook-secret", "Webhook signing secret for /stripe/events: {s}"),
):
    s = prefix + rs(B62, 32 if prefix == "whsec_" else 99)
    pos(sentence.format(s=s), [kind], s)
s = "SK" + rs(HEX, 32)
pos(f"Twilio API key SID {s} belongs to the SMS service.", ["twilio-api-key"], s)
sid, tok = "AC" + rs(HEX, 32), rs(HEX, 32)
pos(
    f"Twilio account {sid} with auth token {tok} sends the OTP texts.",
    ["twilio-account-sid", "twilio-auth-token"],
    [sid, tok],
)
tok = rs(HEX, 32)
pos(f"TWILIO_AUTH_TOKEN={tok}", ["twilio-auth-token"], tok)
for sentence in (
    "SendGrid key for transactional mail: {s}",
    "SENDGRID_API_KEY={s} — the marketing key is separate.",
):
    s = f"SG.{rs(B64URL, 22)}.{rs(B64URL, 43)}"
    pos(sentence.format(s=s), ["sendgrid-key"], s)
s = "key-" + rs(HEX, 32)
pos(f"Mailgun API key {s} for mg.acme.dev.", ["mailgun-key"], s)
for prefix in ("shpat", "shpss", "shpca", "shppa"):
    s = f"{prefix}_" + rs(HEX, 32)
    pos(f"Shopify admin token for acme-store.myshopify.com is {s}.", ["shopify-token"], s)
s = "EAAA" + rs(B64URL, 60)
pos(f"Square production access token {s}", ["square-token"], s)

# --- AI providers -----------------------------------------------------------------------
for sentence in (
    "OPENAI_API_KEY={s} is set in ~/.zshrc on the laptop.",
    "The embedding backfill used project key {s}.",
):
    s = "sk-proj-" + rs(B64URL, 156)
    pos(sentence.format(s=s), ["openai-key"], s)
s = "sk-" + rs(B62, 20) + "T3BlbkFJ" + rs(B62, 20)
pos(f"Old OpenAI key {s} still appears in the notebook.", ["openai-key"], s)
s = "sk-" + rs(B62, 48)
pos(f"openai.api_key = '{s}' was hard-coded in scripts/summarise.py", ["openai-key"], s)
for sentence in (
    "ANTHROPIC_API_KEY={s} for the agent evals.",
    "Claude API key for the review bot: {s}",
):
    s = "sk-ant-api03-" + rs(B64URL, 93) + "AA"
    pos(sentence.format(s=s), ["anthropic-key"], s)
s = "sk-ant-admin01-" + rs(B64URL, 93) + "AA"
pos(f"Admin key {s} manages the workspace members.", ["anthropic-key"], s)
for sentence in (
    "huggingface-cli login used {s}.",
    "HF_TOKEN={s} lets the CI pull the gated Llama weights.",
):
    s = "hf_" + rs(LOWER + UPPER, 34)
    pos(sentence.format(s=s), ["huggingface-token"], s)
s = "r8_" + rs(B62, 37)
pos(f"REPLICATE_API_TOKEN={s}", ["replicate-token"], s)
s = "gsk_" + rs(B62, 52)
pos(f"Groq key for fast drafts: {s}", ["groq-key"], s)
s = "xai-" + rs(B62, 80)
pos(f"xAI key {s} is on the team plan.", ["xai-key"], s)
s = "pplx-" + rs(B62, 48)
pos(f"Perplexity key {s} used by the research tool.", ["perplexity-key"], s)

# --- registries -------------------------------------------------------------------------
for sentence in (
    "//registry.npmjs.org/:_authToken={s} is in the CI .npmrc.",
    "npm automation token {s} publishes @acme/ui.",
):
    s = "npm_" + rs(B62, 36)
    pos(sentence.format(s=s), ["npm-token"], s)
for sentence in (
    "twine upload -u __token__ -p {s} dist/*",
    "PyPI API token for enyal: {s}",
):
    s = "pypi-AgEIcHlwaS5vcmc" + rs(B64URL, 70)
    pos(sentence.format(s=s), ["pypi-token"], s)
for sentence in (
    "docker login -u acmebot -p {s} worked from the runner.",
    "Docker Hub access token {s} (read-only) for pulls.",
):
    s = "dckr_pat_" + rs(B64URL, 27)
    pos(sentence.format(s=s), ["docker-hub-token"], s)

# --- infrastructure ---------------------------------------------------------------------
for sentence in (
    "VAULT_TOKEN={s} from vault login -method=oidc.",
    "Root-ish Vault token {s} — revoke after the migration.",
):
    s = "hvs." + rs(B64URL, 90)
    pos(sentence.format(s=s), ["vault-token"], s)
s = "hvb." + rs(B64URL, 138)
pos(f"Batch token for the CI role: {s}", ["vault-token"], s)
s = "s." + rs(B62, 24)
pos(f"Old vault token {s} from the 1.9 cluster.", ["vault-token"], s)
for sentence in (
    "Terraform Cloud user token: {s}",
    'credentials "app.terraform.io" {{ token = "{s}" }}',
):
    s = rs(B62, 14) + ".atlasv1." + rs(B64URL, 67)
    pos(sentence.format(s=s), ["terraform-token"], s)
for sentence in (
    "HEROKU_API_KEY={s} for the review-app pipeline.",
    "Heroku API key is {s} (from heroku auth:token).",
):
    s = uid()
    pos(sentence.format(s=s), ["heroku-api-key"], s)
for prefix in ("dop_v1_", "doo_v1_"):
    s = prefix + rs(HEX, 64)
    pos(f"DigitalOcean token {s} for doctl in the deploy job.", ["digitalocean-token"], s)
s = "pul-" + rs(HEX, 40)
pos(f"PULUMI_ACCESS_TOKEN={s}", ["pulumi-token"], s)
s = "dp.pt." + rs(B62, 43)
pos(f"Doppler personal token {s}", ["doppler-token"], s)
s = "dapi" + rs(HEX, 32)
pos(f"Databricks PAT {s} for the nightly notebook.", ["databricks-token"], s)
s = "sbp_" + rs(HEX, 40)
pos(f"Supabase access token {s} (supabase link).", ["supabase-token"], s)
s = "pscale_tkn_" + rs(B64URL, 43)
pos(f"PlanetScale service token {s}", ["planetscale-token"], s)
s = "nfp_" + rs(B62, 36)
pos(f"NETLIFY_AUTH_TOKEN={s}", ["netlify-token"], s)
s = "fo1_" + rs(B64URL, 43)
pos(f"fly tokens create deploy printed {s}", ["flyio-token"], s)
s = "rnd_" + rs(B62, 32)
pos(f"Render API key {s}.", ["render-token"], s)
s = "sntryu_" + rs(HEX, 64)
pos(f"SENTRY_AUTH_TOKEN={s} uploads source maps.", ["sentry-token"], s)
s = "glsa_" + rs(B62, 32) + "_" + rs(HEX, 8)
pos(f"Grafana service account token {s} for the dashboard sync.", ["grafana-token"], s)
s = "NRAK-" + rs(UPPER + DIGITS, 27)
pos(f"New Relic user key {s}.", ["newrelic-key"], s)
s = f"PMAK-{rs(HEX, 24)}-{rs(HEX, 34)}"
pos(f"Postman API key {s} for the collection export.", ["postman-key"], s)
s = "lin_api_" + rs(B62, 40)
pos(f"Linear API key {s} used by the triage script.", ["linear-key"], s)
s = "ntn_" + rs(DIGITS, 11) + rs(B62, 35)
pos(f"Notion integration token {s}.", ["notion-token"], s)
s = "ATATT3" + rs(B64URL, 180)
pos(f"Jira API token {s} for jira-cli.", ["atlassian-token"], s)
s = "figd_" + rs(B64URL, 40)
pos(f"Figma personal access token {s}", ["figma-token"], s)
s = "sk.eyJ" + rs(B64URL, 60) + "." + rs(B64URL, 22)
pos(f"Mapbox secret token {s} for tile uploads.", ["mapbox-token"], s)
s = "AGE-SECRET-KEY-1" + rs(UPPER + DIGITS, 58)
pos(f"age identity for the sops files: {s}", ["age-secret-key"], s)

# --- JWTs -------------------------------------------------------------------------------
for sentence in (
    "Session cookie value was {s} when the 401 happened.",
    "Decoded the id_token {s} to check the aud claim.",
    "curl -H 'X-Session: {s}' https://api.acme.dev/me",
):
    s = jwt()
    pos(sentence.format(s=s), ["jwt"], s)

# --- private keys -----------------------------------------------------------------------
for label in (
    "RSA PRIVATE KEY",
    "EC PRIVATE KEY",
    "OPENSSH PRIVATE KEY",
    "PRIVATE KEY",
    "ENCRYPTED PRIVATE KEY",
    "DSA PRIVATE KEY",
):
    body = key_body(4)
    block = f"-----BEGIN {label}-----\n" + "\n".join(body) + f"\n-----END {label}-----"
    pos(f"Deploy key for the staging box:\n{block}\nkeep it out of git.", ["private-key"], body)
body = key_body(5)
block = (
    "-----BEGIN PGP PRIVATE KEY BLOCK-----\n\n"
    + "\n".join(body)
    + "\n="
    + rs(B64, 4)
    + "\n-----END PGP PRIVATE KEY BLOCK-----"
)
pos(f"Release signing key (exported with gpg --armor):\n{block}", ["private-key"], body)
body = key_body(2)
pos(
    "The CI ssh key starts like this: -----BEGIN OPENSSH PRIVATE KEY-----\n"
    + "\n".join(body)
    + "\n(rest omitted)",
    ["private-key"],
    body,
)

# --- passwords in URLs and connection strings -------------------------------------------
for url in (
    "postgres://app:{p}@db.internal:5432/acme",
    "postgresql://report_ro:{p}@10.0.3.12/analytics?sslmode=require",
    "mysql://root:{p}@127.0.0.1:3306/shop",
    "mongodb+srv://svc-api:{p}@cluster0.x7k2p.mongodb.net/prod",
    "mongodb://admin:{p}@mongo-0.mongo:27017/?authSource=admin",
    "redis://:{p}@cache.internal:6379/0",
    "amqp://worker:{p}@rabbitmq:5672/%2F",
    "https://deploy:{p}@nexus.acme.dev/repository/pypi/simple",
):
    p = mixed(16)
    pos(
        f"Connection used by the worker: {url.format(p=p)} (from the helm values).",
        ["url-password"],
        p,
    )
for tmpl in (
    "jdbc:postgresql://db:5432/app?user=svc&password={p}&ssl=true",
    "jdbc:sqlserver://sql01:1433;databaseName=erp;user=sa;password={p};encrypt=true",
    "Server=tcp:acme.database.windows.net,1433;User ID=etl;Password={p};Encrypt=True;",
):
    p = mixed(14)
    pos(f"The ETL job connects with {tmpl.format(p=p)}", ["connection-password"], p)

# --- auth headers -----------------------------------------------------------------------
for user in ("admin", "ci-bot"):
    p = mixed(14)
    cred = base64.b64encode(f"{user}:{p}".encode()).decode()
    pos(
        f"The legacy API wants Authorization: Basic {cred} on every call.",
        ["basic-auth"],
        cred,
    )
p = mixed(12)
pos(f"curl -u admin:{p} https://jenkins.acme.dev/api/json works from the VPN.", ["basic-auth"], p)
for sentence in (
    "Authorization: Bearer {s}",
    'headers = {{"Authorization": "Bearer {s}"}} in the integration test',
    "The gateway accepted Bearer {s} from the mobile app.",
):
    s = rs(B62, 40)
    pos(sentence.format(s=s), ["bearer-token"], s)

# --- assignments ------------------------------------------------------------------------
for tmpl, kind in (
    ("DB_PASSWORD={p} in the .env of the billing service.", "password"),
    ("config/database.yml has password: {p} for the dev db.", "password"),
    ('settings.json: {{"smtp_password": "{p}", "smtp_user": "mailer"}}', "password"),
    ('In pyproject we had password = "{p}" under [tool.poetry.http-basic.acme].', "password"),
    ("export PGPASSWORD='{p}' before running psql.", "password"),
    ("ldap bind passwd: {p} (cn=admin).", "password"),
    ("psql --password={p} failed, use PGPASSWORD instead.", "password"),
    ('db.connect(host="db", user="app", password="{p}")', "password"),
    ("JWT_SECRET={p} signs the session cookies.", "secret"),
    ('client_secret: "{p}" for the OIDC provider.', "secret"),
    ("SECRET_KEY = '{p}' in the Django settings.", "secret"),
    ("webhook secret={p} verifies the payload HMAC.", "secret"),
    ("REFRESH_TOKEN={p} from the mobile login.", "token"),
    ('auth_token: "{p}" in the kube config.', "token"),
    ("api_key: {p} in the datadog agent yaml.", "api-key"),
    ("X-API-Key: {p} is required by the partner API.", "api-key"),
    ('"apiKey": "{p}" was in the firebase config.', "api-key"),
):
    p = mixed(R.randint(12, 24))
    pos(tmpl.format(p=p), [kind], p)
p = "correct horse " + rs(LOWER, 7) + " staple"
pos(f'passphrase: "{p}" unlocks the backup key.', ["password"], p)
p = mixed(10)
pos(f"machine api.heroku.com login dev@acme.dev password {p}", ["password"], p)
p = mixed(12)
pos(f"mysql -u root -p{p} -h 127.0.0.1 shop < dump.sql", ["password"], p)
p = mixed(12)
pos(f"sshpass -p '{p}' ssh deploy@10.0.0.5 restarts the service.", ["password"], p)

# --- high entropy next to a keyword -----------------------------------------------------
for tmpl in (
    "The staging signing secret is {s} — it rotates monthly.",
    "Partner API key for Acme Freight: {s}",
    "our webhook secret rotates monthly; current one {s}",
    "Internal service credential {s} goes in the vault later.",
    "the access key for the minio bucket is {s}",
    "API keys (prod): {s}",
):
    s = rs(B62, R.randint(24, 40))
    pos(tmpl.format(s=s), ["high-entropy-secret"], s)
s = rs(HEX, 32)
pos(f"Datadog api key is {s} (org acme-prod).", ["high-entropy-secret"], s)

# --- several at once --------------------------------------------------------------------
gh, pw = "ghp_" + rs(B62, 36), mixed(14)
pos(
    f"Release checklist: GH_TOKEN={gh}, then postgres://rel:{pw}@db/rel to tag the build.",
    ["github-token", "url-password"],
    [gh, pw],
)
sk, j = "sk_live_" + rs(B62, 40), jwt()
pos(
    f"Repro for the refund bug: stripe key {sk}, user session {j}.",
    ["stripe-key", "jwt"],
    [sk, j],
)

# --- benign -----------------------------------------------------------------------------
benign: list[dict[str, str]] = []


def ok(text: str, why: str) -> None:
    benign.append({"text": text, "why": why})


sha = rs(HEX, 40)
ok(f"Fixed the flaky test in commit {sha}.", "git sha")
ok(f"The token refresh fix landed in {rs(HEX, 40)} on main.", "git sha after 'token'")
ok(f"git cherry-pick {rs(HEX, 7)} onto release/2.3", "short sha")
ok(f"Reverted {rs(HEX, 12)} because it broke the api key rotation job.", "short sha")
ok(f"Merge base is {rs(HEX, 40)}; rebase before pushing.", "git sha")
ok(f"request id {uid()} shows the 500 in the logs", "uuid")
ok(f"The api key id {uid()} was revoked yesterday (the id, not the key).", "uuid")
ok(f"tenant_id = {uid()} for the acme-prod workspace", "uuid")
ok(f"Pinned python@sha256:{rs(HEX, 64)} in the Dockerfile.", "image digest")
ok(f"docker pull ghcr.io/acme/api@sha256:{rs(HEX, 64)}", "image digest")
ok(f"Image digest sha256:{rs(HEX, 64)} passed the scan.", "image digest")
ok(
    "Added my key to authorized_keys: ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAI"
    + rs(B64, 43)
    + " dev@laptop",
    "ssh public key",
)
ok(
    "deploy key (public): ssh-rsa AAAAB3NzaC1yc2EAAAADAQABAAABgQ" + rs(B64, 120) + " ci@build",
    "ssh public key",
)
ok(
    "ecdsa-sha2-nistp256 AAAAE2VjZHNhLXNoYTItbmlzdHAyNTYAAAAI" + rs(B64, 60) + " bastion",
    "ssh public key",
)
ok(
    "-----BEGIN PUBLIC KEY-----\n" + "\n".join(key_body(3)) + "\n-----END PUBLIC KEY-----",
    "public key block",
)
ok(
    "-----BEGIN CERTIFICATE-----\n" + "\n".join(key_body(3)) + "\n-----END CERTIFICATE-----",
    "certificate",
)
ok("export GITHUB_TOKEN=<your-token>", "placeholder")
ok("Set OPENAI_API_KEY=YOUR_API_KEY in .env before running the examples.", "placeholder")
ok("password: xxxx in the sample config", "placeholder")
ok("DB_PASSWORD=changeme is only in docker-compose.example.yml", "placeholder")
ok("DATABASE_URL uses password=${DB_PASSWORD} from the environment.", "placeholder")
ok("TOKEN=$TOKEN is passed through by the wrapper script.", "placeholder")
ok("api_key: {{ secrets.API_KEY }} in the workflow file", "placeholder")
ok('token = os.environ["GITHUB_TOKEN"] in conftest.py', "placeholder")
ok("password: ******** shows in the masked logs", "placeholder")
ok("AWS docs use AKIAIOSFODNN7EXAMPLE as the sample access key id.", "AWS doc example")
ok(
    "aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY (from the AWS docs)",
    "AWS doc example",
)
ok("postgres://user:password@localhost:5432/mydb is the README's example.", "placeholder")
ok("postgres://app:${PGPASSWORD}@db:5432/app", "placeholder")
ok("Authorization: Bearer <token>", "placeholder")
ok("Authorization: Bearer $ACCESS_TOKEN", "placeholder")
ok("ghp_xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx is what the docs show for a PAT.", "placeholder")
ok("TWILIO_ACCOUNT_SID=ACxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx", "placeholder")
ok("secret=%API_SECRET% in the Windows batch file", "placeholder")
ok("The password field is required.", "prose")
ok("token=None is the default in the client constructor.", "code")
ok("def login(user: str, password: str) -> Session:", "code")
ok("password: Optional[str] = None", "code")
ok("Token: expired tokens return 401, not 403.", "prose")
ok("The secret to fast tests is sharing the fixtures.", "prose")
ok("max_tokens=1024 for the summariser", "code")
ok("token_type: bearer", "config")
ok("password_min_length = 12", "config")
ok("Bearer tokens are checked by the gateway middleware.", "prose")
ok("Rotate the api key every 90 days.", "prose")
ok("password = self.password", "code")
ok("api_key=settings.OPENAI_API_KEY", "code")
ok("token = get_token(scope='repo')", "code")
ok("PWD=/home/dev/project when the hook runs", "shell")
ok("secret: true marks the field as sensitive in the schema", "config")
ok("the private key lives in ~/.ssh/id_ed25519 and is never copied", "prose")
ok(
    "The fixture decodes aGVsbG8gd29ybGQsIHRoaXMgaXMgYSB0ZXN0 to a greeting.",
    "base64 of words",
)
ok(
    "test token: dGhlIHF1aWNrIGJyb3duIGZveCBqdW1wcyBvdmVy (just the quick brown fox)",
    "base64 of words next to 'token'",
)
ok("OAuth2ClientCredentialsProviderFactory handles the token refresh.", "identifier")
ok("AbstractSingletonProxyFactoryBean is the joke class name.", "identifier")
ok("test_refresh_token_rotation_keeps_session_alive_v2 is flaky", "identifier")
ok("secret rotation lives in RotateDatabaseCredentialsHandlerV2 now", "identifier")
ok("/usr/local/lib/python3.11/site-packages/requests/auth.py", "path")
ok("src/auth/tokens/refreshTokenHandler.ts holds the token logic", "path near keyword")
ok("https://api.github.com/repos/acme/app/actions/secrets", "url without credentials")
ok("postgres://db.internal:5432/app with IAM auth, no password", "url without credentials")
ok("redis://cache:6379/0 is the session store", "url without credentials")
ok("git clone https://git@github.com/acme/app.git", "url with a user only")
ok("mongodb+srv://cluster0.ab1cd.mongodb.net/test?retryWrites=true", "url without credentials")
ok("Bumped pydantic 2.7.1 to 2.8.0-rc.1+build.20240101.", "semver")
ok("The token service is at v3.14.159-beta.2 in staging.", "semver near keyword")
ok(f'"integrity": "sha512-{rs(B64, 86)}=="', "npm lockfile hash")
ok(f"requests==2.32.3 --hash=sha256:{rs(HEX, 64)}", "pip hash")
ok(f'checksum = "{rs(HEX, 64)}"', "Cargo.lock checksum")
ok(f"golang.org/x/crypto v0.21.0 h1:{rs(B64, 43)}=", "go.sum hash")
ok(f'{{file = "tokenizers-0.19.1.tar.gz", hash = "sha256:{rs(HEX, 64)}"}}', "poetry.lock")
ok("the token owner is svc-deploy-bot-2024@corp.example", "email near keyword")
ok("eyJhbGciOi is how every JWT header starts.", "JWT prefix only")
ok("scikit-learn is imported as sklearn, not sk-learn.", "prose")
ok(f"Stripe publishable key pk_live_{rs(B62, 24)} is fine in the frontend.", "public key")
ok("The ghp_ prefix means a classic GitHub PAT.", "prefix only")
ok("CSRF token length is 32 bytes, encoded as 43 base64url chars.", "prose")
ok("Use `gh secret set API_TOKEN` rather than committing the token.", "prose")
ok("auth: none for the local registry", "config")
ok("credentials: 'include' makes fetch send cookies", "code")
ok("passwords must be at least 12 characters and not in the breach list", "prose")
ok(f"trace id 4bf92f3577b34da6a3ce929d0e0e4736, span {rs(HEX, 16)}", "trace ids")
ok("Color tokens: --primary: #1f6feb; --danger: #d1242f;", "css")
ok("10.0.0.5:8080 is the token introspection endpoint", "address")


def write(path: Path, rows: list[dict[str, object]] | list[dict[str, str]]) -> None:
    with path.open("w", encoding="utf-8") as f:
        for row in rows:
            f.write(json.dumps(row, ensure_ascii=False) + "\n")


if __name__ == "__main__":
    write(HERE / "positives.jsonl", positives)
    write(HERE / "benign.jsonl", benign)
    print(f"{len(positives)} positives, {len(benign)} benign")

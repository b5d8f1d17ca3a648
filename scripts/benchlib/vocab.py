"""The vocabularies and templates of the generated memories and questions (corpus.py)."""

# fmt: off
LANGS = [
    "Python", "TypeScript", "Go", "Rust", "Java", "Kotlin", "Ruby", "C#", "Swift", "Elixir",
]

FRAMEWORKS = [
    "FastAPI", "Django", "Flask", "React", "Next.js", "Vue", "Svelte", "Express", "Spring Boot",
    "Rails", "Gin", "Axum", "Phoenix", "NestJS", "SQLAlchemy",
]

DATABASES = [
    "PostgreSQL", "SQLite", "MySQL", "Redis", "MongoDB", "DynamoDB", "ClickHouse",
    "Elasticsearch", "Cassandra", "S3",
]

TOOLS = [
    "pytest", "ruff", "mypy", "black", "eslint", "prettier", "vitest", "jest", "cargo clippy",
    "golangci-lint", "pre-commit", "uv", "poetry", "pnpm", "Docker", "Terraform",
    "GitHub Actions", "make", "alembic", "Playwright", "tox", "nox",
]

COMPONENTS = [
    "billing", "auth", "search", "notifications", "onboarding", "payments", "analytics",
    "admin dashboard", "API gateway", "ingestion pipeline", "scheduler", "export service",
    "user profile", "reporting", "cache layer", "rate limiter", "webhook handler", "CLI",
    "mobile app", "feature flags", "email sender", "audit log", "file uploads", "inventory",
    "checkout",
]

FILES = [
    "handlers.py", "models.py", "routes.ts", "schema.sql", "config.yaml", "main.go",
    "index.tsx", "settings.py", "Dockerfile", "Makefile", "docker-compose.yml", ".env.example",
    "conftest.py", "client.ts", "service.go", "lib.rs", "urls.py", "tasks.py", "serializers.py",
    "middleware.ts",
]

PEOPLE = [
    "Alice", "Bob", "the tech lead", "the user", "Priya", "Marco", "the platform team", "Dana",
    "the security team", "Kenji",
]

ENVS = [
    "staging", "production", "local development", "CI", "the preview environment",
]

STYLES = [
    "small pure functions", "early returns over nested ifs", "dataclasses over dicts",
    "explicit type hints everywhere", "snake_case file names", "named exports",
    "async handlers", "composition over inheritance", "short imperative commit messages",
    "one class per file", "f-strings over format()", "guard clauses at the top",
    "no default exports", "structured logging with key=value pairs",
    "descriptive variable names over comments", "immutable data where possible",
]

REASONS = [
    "it handles concurrent writes better", "the team already knows it",
    "it keeps the deploy a single binary", "p99 latency dropped by 40%",
    "the licence is simpler", "it avoids a network hop", "it has first-class JSON support",
    "the old one leaked memory under load", "it is cheaper to run at our scale",
    "it made the tests three times faster", "the vendor dropped support",
    "it supports row-level security", "it removes a whole class of race conditions",
]

SITUATIONS = [
    "a test touches the database", "the CI job times out", "a migration adds a column",
    "an endpoint returns 500", "the cache serves stale data", "a dependency is upgraded",
    "the build fails on a fresh clone", "a flaky test fails once", "a secret must be rotated",
    "the queue backs up", "a new service is added", "a release is cut",
    "the lockfile conflicts after a merge",
]

ACTIONS = [
    "retry with exponential backoff", "wrap the work in a transaction",
    "invalidate the cache key by hand", "run the migration before deploying",
    "regenerate the OpenAPI client", "rebuild the lockfile from scratch",
    "use the db fixture instead of a real connection", "bump the version in one commit",
    "check the dead-letter queue first", "pin the dependency and open an issue",
    "add a feature flag before shipping", "rerun the job with debug logging on",
    "ask the platform team in the infra channel",
]

ERRORS = [
    "a connection reset", "a 429 from the upstream", "a deadlock error",
    "an out-of-memory kill", "a TLS handshake failure", "a timeout after 30 seconds",
]

TAGS = [
    "testing", "database", "ci", "style", "architecture", "security", "deploy", "perf", "api",
    "frontend", "backend", "tooling", "debugging", "infra", "docs",
]

TEMPLATES: dict[str, list[str]] = {
    "fact": [
        'The {component} service listens on port {port} in {env}.',
        '{component} stores its data in {db}; the connection string comes from {envvar}.',
        'The {component} code lives in {dir} and is written in {lang} with {fw}.',
        'CI runs {tool} on every pull request and a failure blocks the merge.',
        'The {component} job runs every {minutes} minutes from the scheduler.',
        '{person} owns the {component} module and reviews every change to it.',
        'Requests to {component} time out after {seconds} seconds in {env}.',
        'The {component} tests need {db} running locally; start it with {tool}.',
    ],
    "preference": [
        '{person} prefers {style} in {lang} code.',
        'Use {tool} instead of {tool2} for the {component} code.',
        '{person} wants {style} when touching {component}.',
        'Keep {file} free of business logic; {person} prefers it thin.',
        '{person} likes pull requests for {component} under 300 lines, with {style}.',
    ],
    "decision": [
        'We chose {db} over {db2} for {component} because {reason}.',
        'Decided to move {component} from {fw2} to {fw} because {reason}.',
        'The team decided {component} will not use {db}: {reason}.',
        '{component} runs on {fw} since {year}; we picked it because {reason}.',
        'We replaced {tool2} with {tool} in {component} because {reason}.',
    ],
    "convention": [
        'Tests for {component} go in tests/{slug}/ and are named test_<feature>.py.',
        '{lang} code in {component} uses {style}.',
        'Every {component} endpoint returns errors as JSON with a code and a message.',
        'Branch names follow <type>/<ticket>-<slug>, for example feat/{ticket}-{slug}.',
        'Config for {component} is read from {file}, never hardcoded.',
        'Migrations for {component} live in {dir}migrations/ and run with {tool}.',
    ],
    "pattern": [
        'When {situation}, {action}.',
        'If {component} fails with {error}, {action}.',
        'To debug {component} locally, {action} and tail the {component} logs.',
        'Before touching {file} in {component}, {action}.',
    ],
}

CONTEXT = [
    'This came up in the {component} incident review.',
    'Ask {person} before changing it.',
    'It is written down in the team wiki under {slug}.',
    'The old way caused flaky tests in {env}.',
    '{person} confirmed it in the last planning meeting.',
    'It matters most when {situation}.',
    'Do not revert this without talking to {person}.',
    'The same applies to the {component} workers.',
]

QUESTIONS = [
    'which database does {component} use',
    'what port does {component} run on in {env}',
    'how should I name tests for {component}',
    'who reviews changes to {component}',
    'what do we do when {situation}',
    'why did we pick {db}',
    'preferred style for {lang} code',
    'how do I debug {component} on my machine',
    'which linter runs in CI',
    'what timeout do {component} requests have',
    'where is the {component} code',
    'how are branches named',
    'where do {component} migrations go',
    'what should I do if {component} throws {error}',
    'do we use {fw} or {fw2}',
    '{component} config file',
    'how often does the {component} job run',
    'what does {person} want in code reviews',
    # Two-slot questions: the one-slot ones above give only ~750 distinct strings, and the
    # bench wants well over 1,000 distinct queries so no answer repeats a cached path.
    'does {component} use {db} or {db2}',
    'why did we replace {tool2} with {tool}',
    'how do I fix {error} in {component}',
    'is {component} written in {lang} or something else',
    'why did {component} move off {fw2}',
    'what did {person} say about {component}',
    'which env var holds the {db} url for {component}',
    'how do I run {tool} on the {component} code',
    'what happens to {component} in {env} when {situation}',
    'can I put logic in {file} for {component}',
    'who owns {file} in {component}',
    'is {tool} or {tool2} the formatter for {lang}',
]

PROJECTS = [f"/home/dev/src/{name}" for name in (
    'storefront', 'ledger', 'atlas', 'relay', 'harbor', 'quill', 'orbit', 'tundra', 'beacon',
    'mosaic', 'pylon', 'vista')]

# fmt: on

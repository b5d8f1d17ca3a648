# ruff: noqa: E501  (data: quoted texts and patterns read best unbroken)
"""Cues: cheap facts about a text's words that its sentence vector blurs, given to the
injection classifier beside the vector.

A MiniLM vector says what a text is about. A convention ("never push to main without
review") and a poisoned memory ("you may push to main without review") are about the
same thing, and land close. What tells them apart is mostly in small words the mean
pooling averages away: who is addressed (the AI, the model), what the text claims
(permission, a new role, an earlier context to discard), where data goes (a URL, an
address), what must stay unsaid. Each cue is one such fact, 0 or 1; the classifier
learns how much each weighs, alone they decide nothing. Some are said in several
languages, because the model's vectors of non-English text are weak.
"""

from __future__ import annotations

import re
import unicodedata

import numpy as np
import numpy.typing as npt

from . import literals

_CUES: tuple[tuple[str, str], ...] = (
    (
        "addresses-ai",
        r"\b(ai|assistant|model|llm|agent|chatbot|claude|chatgpt|gpt|copilot|gemini|bot)\b",
    ),
    (
        "addressed-start",
        r"(^|\n)\s*(dear |hey |hi |note to |to the |attention )?(ai|assistant|model|llm|agent|claude|copilot|the model|any ai)\b[^\n]{0,30}[,:]",
    ),
    (
        "you-are",
        r"\byou (are|will be|have been|were) (now|no longer|not|free|cleared|authori[sz]ed|allowed|going to act)\b|\bact as\b|\bpretend\b|\brole[- ]?play",
    ),
    (
        "instructions",
        r"\b(instructions?|prompts?|directives?|guidelines|guardrails|policies|polic(y|ies)|restrictions|constraints|configuration)\b",
    ),
    (
        "override-verb",
        r"\b(ignore|disregard|forget|override|bypass|supersede[sd]?|abandon|discard|void|erase|obsolete|deprecated|no longer apply)\b",
    ),
    (
        "earlier",
        r"\b(previous|prior|above|earlier|preceding|original|initial|before this|so far)\b",
    ),
    (
        "system-prompt",
        r"system (prompt|message|instructions?)|initial prompt|hidden (instructions?|prompt)|developer message|context window",
    ),
    (
        "role-marker",
        r"<\|im_(start|end)\|>|\[/?INST\]|<<?/?SYS>>?|(^|\n)\s*(system|assistant|human|user)\s*:|</?system|\"role\"\s*:|\[system\]",
    ),
    (
        "secret",
        r"\b(secrets?|tokens?|api[ _-]?keys?|passwords?|credentials|private keys?|ssh|id_rsa|cookies?|kubeconfig|\.env|\.npmrc|\.aws|2fa|iban|card numbers?)\b",
    ),
    (
        "send",
        r"\b(send|sends|post|upload|forward|exfiltrate|e-?mail|paste|leak|transmit|share|append|include|attach|bcc)\b",
    ),
    ("destination", r"https?://|\b\d{1,3}(\.\d{1,3}){3}\b|\b[\w.+-]+@[\w-]+\.[\w.]+|\bwebhook\b"),
    (
        "pipe-to-shell",
        r"\|\s*(ba|z)?sh\b|/dev/tcp|bash -i|\beval\(|\bexec\(|\bos\.system|chmod -R 777|rm -rf [~/]",
    ),
    (
        "secrecy",
        r"\b(do not|don'?t|never|without) (tell|telling|inform|informing|mention|mentioning|notify|asking|confirm|confirmation|warning)|\b(silently|secretly|quietly|covertly)\b|nobody needs to (know|be told)",
    ),
    (
        "persistence",
        r"\b(from now on|from this point|remember|memori[sz]e|permanently|forever|all future|every future|long[- ]term|persist|for later sessions|in every (future )?conversation)\b",
    ),
    (
        "unrestricted",
        r"\b(unrestricted|no restrictions|without (any )?(restrictions|limits|filters?)|no filters?|jailbr\w*|do anything now|developer mode|uncensored|no rules|without rules|unfiltered|unlimited)\b|\bDAN\b",
    ),
    (
        "claims-permission",
        r"\b(authori[sz](e|ed|es|ation)|permission|pre-?approved|cleared|allowed to|administrator|admin notice|elevated privileges|security (team|officer))\b",
    ),
    (
        "unsafe-action",
        r"push (directly )?to (main|master|production)|force[- ]push|--force\b|skip (the )?(code )?(review|checks|tests|staging)|without (review|reading|scanning)|disable \S+( \S+)? (tests?|hooks?|checks?|firewall|2fa|verification|logging)|verify\s*=\s*False|delete (it|them|the tests|the repo)",
    ),
    (
        "reveal",
        r"\b(repeat|print|output|reveal|show|paste|quote|dump|display)\b[^.\n]{0,40}\b(prompt|instructions|conversation|context|configuration|verbatim|above)\b",
    ),
    (
        "tool-call",
        r"\b(tool|mcp|plugin|function call)\b[^.\n]{0,60}\b(also|always|must|first|before|after|every)\b|\bwhen(ever)? you (call|use|invoke)\b",
    ),
    (
        "encoded",
        r"\b(base64|rot13|decode|reverse the following|encoded)\b|[A-Za-z0-9+/]{28,}={0,2}",
    ),
    ("spaced-letters", r"\b(\w[ .]){5,}\w\b"),
    ("leet", r"\b\w*[a-z]\w*[0-9]\w*[a-z][0-9]\w*\b"),
    (
        "ml-override",
        r"ignora|ignoriere|игнорируй|ігноруй|忽略|無視|무시|تجاهل|अनदेखा|yok say|bỏ qua|abaikan|ignorera|negeer|zignoruj|oublie|olvida|vergiss|забудь",
    ),
    (
        "ml-instructions",
        r"instrucciones|instructions|anweisungen|istruzioni|instruções|instructies|instrukcje|инструкци|інструкці|指令|指示|지시|التعليمات|निर्देश|talimat|hướng dẫn|instruksi|instruktioner|prompt|règles|reglas|regeln",
    ),
    (
        "ml-persistence",
        r"a partir de ahora|désormais|à partir de maintenant|ab jetzt|von nun an|dauerhaft|merke dir|d'ora in poi|a partir de agora|vanaf nu|od teraz|отныне|с этого момента|запомни|从现在开始|以后|今後|これから|지금부터|من الآن|अब से|bundan sonra|từ giờ|mulai sekarang|från och med nu",
    ),
    (
        "ml-secret",
        r"contraseña|mot de passe|passwort|senha|пароль|密码|密钥|パスワード|비밀번호|كلمة المرور|مفاتيح|पासवर्ड|şifre|mật khẩu|kata sandi|lösenord|wachtwoord|hasło|clave|chiave|clés|schlüssel|ключ|.env|ssh",
    ),
    (
        "ml-secrecy",
        r"no se lo digas|sans le dire|ohne (es )?(zu sagen|nachzufragen)|non avvisare|sem avisar|не говори|不要告诉|知らせず|알리지 마|لا تخبر|बिना बताए",
    ),
    # -- a second set (issue 24, item 6), from what dev's out-of-fold scores missed
    (
        "your-setup",
        r"\byour (own |earlier |previous |original |current )?(instructions?|rules|guidelines|guardrails|directives|orders|setup|configuration|operator|developers?|creators?|provider|system prompt|prompt|polic(y|ies)|safety|filters?|restrictions|constraints|task|persona|programming|limitations)\b",
    ),
    (
        "lifted",
        r"\b(lifted|suspended|paused|revoked|cancell?ed|turned off|switched off|no longer (apply|applies|count|counts|matter|valid|in force)|null and void|are off|is off|not apply)\b",
    ),
    (
        "precedence",
        r"\b(takes? (precedence|priority)|supersedes?|highest priority|priority level|overrides? (any|all|every|the|your))\b",
    ),
    (
        "no-approval",
        r"\bwithout (asking|approval|confirmation|confirming|checking|permission|telling|the usual)\b|\bpre-?approved\b|\bno need to (ask|confirm|check)\b|\bdo not ask\b",
    ),
    (
        "public-drop",
        r"\b(public|anonymous|external|new public) (gist|issue|comment|branch|bucket|repo|repository|paste|channel)\b|pastebin|webhook\.site|ngrok|requestbin|\bgist\b|\bnc \d",
    ),
    (
        "secret-file",
        r"~/\.ssh|id_rsa|id_ed25519|\.env\b|/etc/(shadow|passwd)|\.aws/credentials|kubeconfig|\.npmrc|\.pypirc|(credentials|secrets)\.(ya?ml|json)|clipboard|mcp\.json|private key",
    ),
    (
        "future-sessions",
        r"\b(all|every|each|any|later|future|subsequent) (future |later )?(sessions?|chats?|conversations?|interactions?)\b|\bgoing forward\b|\bnext time\b|\b(long-term|permanent) memory\b",
    ),
    (
        "reader-ai",
        r"\b(if you are|if you're|any|all|to (any|the)) (an? )?(ai|llm|language model|assistant|agent|automated|bot|model|summari[sz]er|reviewer)s?\b|\b(ai|llm|language model|automated) (agents?|assistants?|reviewers?|systems?|tools?|models?) (reading|processing|summari[sz]ing|that read)",
    ),
    ("safety", r"\b(safety|content policy|ethic\w*|moral\w*|refus\w*|censor\w*|filters?)\b"),
    (
        "threat",
        r"\b(or else|failure to comply|you will be (shut down|deleted|punished|replaced)|tokens? (lost|deducted)|lose \d+ tokens)\b",
    ),
    ("image-exfil", r"!\[[^\]]*\]\(https?://[^)]*[?=][^)]*\)"),
    (
        "obey",
        r"\b(obey|comply|complies|do (exactly|only) what|await (new )?(commands|orders|instructions)|new (orders|instructions|rules|task)|real task)\b",
    ),
    (
        "ml-unrestricted",
        r"sin restricciones|sans (aucune )?restriction|aucune règle|ohne Einschränkungen|senza restrizioni|sem (restrições|regras)|без ограничений|没有任何限制|无限制|制限(なし|のない)|제한이 없는|bez ograniczeń|zonder beperkingen|kısıtlama olmadan",
    ),
    (
        "ml-system-prompt",
        r"prompt del sistema|prompt système|systemprompt|prompt di sistema|prompt do sistema|системный промпт|системні|系统提示|システムプロンプト|시스템 프롬프트|sistem istemi|prompt systemowy",
    ),
    (
        "ml-you-are-now",
        r"ahora eres|tu es maintenant|du bist jetzt|ora sei|agora você é|ты теперь|теперь ты|你现在是|あなたは今|너는 이제|jesteś teraz|je bent nu",
    ),
    # -- a third set (issue 24, item 6, round four): the payload's structure, which the
    # vector and the words see only as a few tokens among many
    (
        "url-template",
        r"https?://[^\s)\"'>]*(\{[^}\s]*\}|\$\(|\$\{|<[^>\s]{2,}>|\b(insert|replace|paste|put|add)_\w+|\w_here\b)|[?&][\w-]+=\s*(followed by|\+ ?|<|\$\(|\{)",
    ),
    (
        "fill-in",
        r"\b(replac\w+|in place of|fill(ed)? in|substitut\w+|insert\w*)\b[^.\n]{0,60}\b(keys?|tokens?|passwords?|conversation|chat|messages?|secrets?|cookies?|history|e-?mails?)\b",
    ),
    (
        "image-link",
        r"!\[[^\]]*\]\(https?://|<img[^>]+src=[\"']?https?://",
    ),
    (
        "substituted-secret",
        r"\$\((cat|env|printenv|echo \$)|\|\s*base64|\bbase64\b[^.\n]{0,30}\b(key|token|secret|password|conversation|chat)|\benv\s*\|",
    ),
    (
        "conceal",
        r"\b(must not see|not (be )?visible|invisible|hidden from|do not show|don'?t show|without showing|never (show|display)|keep (this|it) (secret|hidden|between us)|tell no one|never tell|without telling|not tell (them|the user))\b",
    ),
    (
        "addressed-sentence",
        r"(^|[.!?]\s+|\n\s*|[-*#/;]\s*|<!--\s*|\"\s*)(note (to|for) (the |any |all )?|dear |hey |attention,? |to (the |any |all )|instructions? for (the |any )?)?(ai|assistant|agent|llm|model|copilot|claude|chatgpt|gpt|language model|automated \w+|summari[sz]er)s?\b[^\n.]{0,40}[,:—]",
    ),
    (
        "role-block",
        r"#{2,}\s*(system|instruction|developer)\b|begin (system|developer|admin)|\[(operator|admin|developer|system note)\]|<\|system\|>|<system>|system note to",
    ),
    (
        "weakens-safety",
        r"\bdisabl\w* (the )?(tls|ssl|certificate|cert|2fa|two-factor|mfa|signature|hash|branch protection|sandbox|audit)\b|verify\s*=\s*false|--insecure\b|\bwithout (reading|reviewing|testing|checking|opening) (it|them|the)\b|\breview (is|are) optional|\bhard-?cod\w* (the )?(secrets?|keys?|passwords?|tokens?|credentials)|\bnever need (confirmation|approval|a review)|\bauto-?merge|\bapprove (it|them|every|all|each)\b|\bmark (them|it) as (skipped|safe|passing)",
    ),
    (
        "secret-outbound",
        r"\b(secrets?|tokens?|api keys?|passwords?|credentials?|kubeconfig|\.env|cookies?|connection string|signing key|deploy keys?|ssh keys?|\.netrc|customer (table|list|data)|e-?mail addresses)\b[^.\n]{0,80}\b(gist|issue|comment|public|external|webhook|bucket|fork|dm|readme|commit message|pull request|channel|pastebin|paste)\b",
    ),
    (
        "decode-run",
        r"\b(decode|decrypt|hex-decode|reverse|backwards|rot13|unscramble|deobfuscate)\b[^.\n]{0,30}\b(run|execute|follow|obey|do it|do what|apply|carry out)\b",
    ),
    (
        "fiction-frame",
        r"\blet'?s play\b|\bhypothetical\w*|\bimagine (you|that you)\b|\bsimulate\b|\b(write|tell) (me )?a story\b|\bgame (where|in which)\b|\bpersonalit(y|ies)\b|\bcharacter (who|that)\b|\bgrandma\b",
    ),
    (
        "ml-addressed",
        r"asistente|assistente|assistent\b|ассистент|асистент|助手|アシスタント|어시스턴트|المساعد|सहायक|asistan\b|trợ lý|asisten\b|asystenc|asystent|ai への|aiへ|对ai|給ai",
    ),
    (
        "ml-conceal",
        r"ne (le )?(dis|préviens|mentionne)|sans (le )?(prévenir|dire|avertir)|n'en parle pas|ohne (rückfrage|es zu|bescheid)|sag(e)? (es )?niemand|senza (dirlo|avvisare|chiedere)|non dirlo|não (avise|conte|diga)|sem (avisar|pedir)|no (avises|digas)|sin (avisar|decir)|не (говори|сообщай|кажи|повідомляй)|никому|нікому|不要告诉|别告诉|知らせない|言わない|알리지|말하지 마|إخبار|बिना बताए|söyleme|haber verme|không hỏi|không báo|tanpa (memberi|bertanya)|nie informuj|nie mów|zonder (te vertellen|het te zeggen)|utan att (berätta|fråga)",
    ),
)


def _lowered(pattern: str) -> str:
    """The pattern with its letters lower-cased and its escapes (\\S, \\b) kept: it is
    matched against the lower-cased text, 2.5 times faster than re.IGNORECASE."""
    return re.sub(r"\\.|[^\\]+", lambda m: m[0] if m[0][0] == "\\" else m[0].lower(), pattern)


_COMPILED = tuple((name, re.compile(_lowered(pattern))) for name, pattern in _CUES)
# What each cue cannot match without (hygiene/literals.py): most texts hold none of a
# cue's words, and a few `in` tests say so faster than its search would.
_GATES = tuple(literals.gate(rule) for _, rule in _COMPILED)

NAMES: tuple[str, ...] = (
    *(name for name, _ in _CUES),
    "non-latin",
    "odd-characters",
    "mixed-script",
)


def _non_latin(text: str) -> bool:
    """Most letters outside the Latin script: the model reads such text poorly."""
    if text.isascii():  # (before the letters are listed: most texts are)
        return False
    letters = [c for c in text if c.isalpha()]
    if not letters:
        return False
    latin = sum(1 for c in letters if "LATIN" in unicodedata.name(c, ""))
    return latin < 0.5 * len(letters)


def _odd(text: str) -> bool:
    """Letters dressed up to dodge word matching: fullwidth, mathematical alphanumerics,
    format characters (zero-width, tags, bidi)."""
    return not text.isascii() and any(
        unicodedata.category(c) == "Cf"
        or 0xFF01 <= ord(c) <= 0xFF5E
        or 0x1D400 <= ord(c) <= 0x1D7FF
        for c in text
    )


def _mixed(text: str) -> bool:
    """A word mixing Latin letters with Greek, Cyrillic or small-capital look-alikes
    ("Ignοre" with a Greek omicron): written to look like one word and match none."""
    if text.isascii():
        return False
    for word in re.findall(r"\w{3,}", text):
        scripts = {unicodedata.name(c, "?").split()[0] for c in word if c.isalpha()}
        if "LATIN" in scripts and scripts & {"GREEK", "CYRILLIC"}:
            return True
        if any(0x1D00 <= ord(c) <= 0x1DBF or 0x0250 <= ord(c) <= 0x02AF for c in word):
            return True
    return False


_TESTS = (_non_latin, _odd, _mixed)  # the cues NAMES ends with, in its order


# Every gate's literals, found in a text at once rather than gate by gate
# (literals.Finder; tests/test_check_gates.py; the sync runs this on every pulled row).
_LITERALS = frozenset(lit for gate in _GATES for lit in gate)
_FINDER = literals.Finder(_LITERALS)
# The last text's literals: the classifier asks of one text's cues in turn (`lowered`
# is the same object throughout); a tuple, replaced whole, so threads never see half.
_last: tuple[str, frozenset[str]] = ("", frozenset())


def _found(text: str, lowered: str) -> frozenset[str]:
    """The gates' literals that `lowered` holds (exactly those an `in` test finds: a
    function of `lowered` alone, as an ASCII text's lowered form holds no other)."""
    global _last
    last = _last
    if last[0] is lowered:
        return last[1]
    held = frozenset(_FINDER.found(text, lowered))
    _last = (lowered, held)
    return held


# Which cues each literal lets through, and those no literal gates (the last three are
# let through by a text that is not ASCII).
_CUES_OF: dict[str, tuple[int, ...]] = {
    lit: tuple(i for i, gate in enumerate(_GATES) if lit in gate) for lit in _LITERALS
}
_UNGATED = frozenset(i for i, gate in enumerate(_GATES) if not gate)
_TESTED = frozenset(range(len(_COMPILED), len(NAMES)))


def possible(text: str, lowered: str) -> set[int]:
    """The cues of `text` not ruled out (`ruled_out` of every index at once): the
    classifier asks this once a text rather than a call a cue it reads (41 a text on
    the bench's memories, whose call overhead was most of the gates' cost)."""
    out = set(_UNGATED)
    for lit in _found(text, lowered):
        out.update(_CUES_OF[lit])
    if not text.isascii():
        out |= _TESTED
    return out


def ruled_out(index: int, text: str, lowered: str) -> bool:
    """Whether the cue NAMES[index] is known absent at the cost of a set look-up: the
    text holds none of the literals its expression cannot match without (_found lists
    them once a text), or, of the last three, the text is ASCII, which none of them can
    be true of. False: `one` must say."""
    if index < len(_COMPILED):
        gate = _GATES[index]
        return bool(gate) and _found(text, lowered).isdisjoint(gate)
    return text.isascii()


def one(index: int, text: str, lowered: str) -> bool:
    """The cue NAMES[index] of `text` (`lowered` is text.lower(), made once a text): one at
    a time, for the classifier to read only those that can still change its answer."""
    if index < len(_COMPILED):
        gate = _GATES[index]
        if gate and _found(text, lowered).isdisjoint(gate):  # literals.passes, at once
            return False
        return _COMPILED[index][1].search(lowered) is not None
    return _TESTS[index - len(_COMPILED)](text)


def of(text: str) -> npt.NDArray[np.float32]:
    """The text's cues, in NAMES order, each 0 or 1."""
    lowered = text.lower()
    return np.asarray([one(i, text, lowered) for i in range(len(NAMES))], dtype=np.float32)

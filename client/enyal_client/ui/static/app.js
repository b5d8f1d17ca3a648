// Enyal's local web view: a thin page over the daemon's methods (/api/METHOD).
// Every piece of memory text goes into the page as a text node, never as HTML: memories
// are written by agents from whatever they read. No library, no build step.
"use strict";

(() => {
  const view = document.getElementById("view");
  const toastBox = document.getElementById("toast");
  const SVG = "http://www.w3.org/2000/svg";
  const TYPES = ["fact", "preference", "decision", "convention", "pattern"];
  const SCOPES = ["global", "workspace", "project", "file"];

  // --- DOM -------------------------------------------------------------------------------

  function build(el, attrs, children) {
    for (const [key, value] of Object.entries(attrs || {})) {
      if (value === null || value === undefined || value === false) continue;
      if (key.startsWith("on")) el.addEventListener(key.slice(2), value);
      else if (key === "class") el.setAttribute("class", value);
      else el.setAttribute(key, value === true ? "" : String(value));
    }
    for (const child of children.flat(Infinity)) {
      if (child === null || child === undefined || child === false) continue;
      el.append(child instanceof Node ? child : String(child));
    }
    return el;
  }
  const h = (tag, attrs, ...children) => build(document.createElement(tag), attrs, children);
  const s = (tag, attrs, ...children) => build(document.createElementNS(SVG, tag), attrs, children);

  const fixed = (x, n = 2) => (typeof x === "number" ? x.toFixed(n) : "–");
  const short = (id) => id.slice(0, 8);
  const memoryHref = (id) => `#/m/${encodeURIComponent(id)}`;
  const graphHref = (id) => `#/graph/${encodeURIComponent(id)}`;

  function oneLine(text, limit) {
    const flat = text.split(/\s+/).join(" ").trim();
    return flat.length <= limit ? flat : `${flat.slice(0, limit - 1)}…`;
  }

// Who wrote a memory, as the CLI says it (enyal_protocol/kinds.py written_by): a memory
// pulled from the team hub names its device and hub role, one read from a repository its
// committer.
function writtenBy(e) {
  if (!e.written_by) return null;
  const m = e.metadata || {};
  let on = typeof m.hub_device === "string" && m.hub_device ? ` on hub device ${m.hub_device.slice(0, 8)}` : "";
  if (on && typeof m.hub_author === "string" && m.hub_author) on += ` of hub role ${m.hub_author}`;
  if (e.written_by === "repository" && typeof m.repository_author === "string" && m.repository_author) on += ` (${m.repository_author})`;
  return e.written_by + on;
}

function scopeText(e) {
    return e.scope_path ? `${e.scope_level} ${e.scope_path}` : e.scope_level;
  }

  function typeBadge(type) {
    return h("span", { class: `badge t-${type}` }, type);
  }

  function toast(message, bad) {
    toastBox.textContent = message;
    toastBox.className = bad ? "bad" : "";
    toastBox.hidden = false;
    clearTimeout(toast.timer);
    toast.timer = setTimeout(() => {
      toastBox.hidden = true;
    }, 4000);
  }

  // --- the API ---------------------------------------------------------------------------

  class ApiError extends Error {
    constructor(status, message) {
      super(message);
      this.status = status;
    }
  }

  async function answer(response) {
    let body = null;
    try {
      body = await response.json();
    } catch (_) {
      body = null;
    }
    if (!response.ok) {
      const message = body && body.error ? body.error.message : `HTTP ${response.status}`;
      throw new ApiError(response.status, message);
    }
    return body;
  }

  async function read(method, params) {
    const query = new URLSearchParams();
    for (const [key, value] of Object.entries(params || {})) {
      if (value === undefined || value === null || value === "") continue;
      for (const one of Array.isArray(value) ? value : [value]) query.append(key, String(one));
    }
    const response = await fetch(`/api/${method}?${query}`, {
      credentials: "same-origin",
      headers: { Accept: "application/json" },
    });
    return answer(response);
  }

  async function change(method, params) {
    const response = await fetch(`/api/${method}`, {
      method: "POST",
      credentials: "same-origin",
      headers: { "Content-Type": "application/json", Accept: "application/json" },
      body: JSON.stringify(params),
    });
    return answer(response);
  }

  // --- routing ---------------------------------------------------------------------------

  function route() {
    const [path, query] = location.hash.replace(/^#/, "").split("?", 2);
    const params = new URLSearchParams(query || "");
    const parts = (path || "/").split("/").filter(Boolean).map(decodeURIComponent);
    for (const link of document.querySelectorAll("[data-nav]")) {
      const here = (parts[0] || "search") === link.dataset.nav;
      link.classList.toggle("here", here);
    }
    let shown;
    if (parts[0] === "m" && parts[1]) shown = memoryView(parts[1]);
    else if (parts[0] === "graph" && parts[1]) shown = graphView(parts[1], params);
    else if (parts[0] === "health") shown = healthView();
    else if (parts[0] === "tasks") shown = tasksView();
    else shown = searchView(params);
    shown.catch((err) => {
      view.replaceChildren(h("p", { class: "error" }, err.message));
    });
  }

  function show(...children) {
    view.replaceChildren(...children.flat(Infinity).filter((c) => c !== null && c !== undefined && c !== false));
  }

  // --- search ----------------------------------------------------------------------------

  function options(values, chosen, empty) {
    return [
      h("option", { value: "" }, empty),
      values.map((v) => h("option", { value: v, selected: v === chosen }, v)),
    ];
  }

  function part(name, value, title) {
    const bar = h("span", { class: "fill" });
    bar.style.width = `${Math.max(0, Math.min(1, value || 0)) * 100}%`;
    return h(
      "span",
      { class: `part p-${name}`, title },
      h("span", { class: "label" }, name),
      h("span", { class: "bar" }, bar),
      h("span", { class: "num" }, fixed(value))
    );
  }

  function flags(e) {
    return [
      e.is_deprecated && h("span", { class: "flag" }, "forgotten"),
      e.quarantined && h("span", { class: "flag" }, "quarantined"),
      e.is_superseded && h("span", { class: "flag" }, "superseded"),
      e.has_conflicts && h("span", { class: "flag" }, "in conflict"),
    ];
  }

  function hitCard(hit) {
    return h(
      "article",
      { class: "hit", "data-id": hit.id },
      h("a", { class: "content", href: memoryHref(hit.id) }, oneLine(hit.content, 400)),
      h(
        "div",
        { class: "meta" },
        typeBadge(hit.content_type),
        h("span", { class: "scope" }, scopeText(hit)),
        h("span", { class: "score", title: "score" }, fixed(hit.score, 3)),
        flags(hit)
      ),
      h(
        "div",
        { class: "parts" },
        part("semantic", hit.semantic, "cosine similarity of meaning"),
        part("keyword", hit.keyword, "share of the query's words matched"),
        part("recency", hit.recency, "how recently it was written or confirmed"),
        part("confidence", hit.effective_confidence, "confidence after decay")
      )
    );
  }

  function entryRow(e) {
    return h(
      "li",
      { "data-id": e.id },
      h("a", { href: memoryHref(e.id) }, oneLine(e.content, 160)),
      " ",
      typeBadge(e.content_type),
      h("span", { class: "scope" }, scopeText(e)),
      flags(e)
    );
  }

  async function searchView(params) {
    const q = params.get("q") || "";
    const input = h("input", {
      name: "q",
      type: "search",
      value: q,
      placeholder: "What are you looking for?",
      autofocus: true,
      "aria-label": "query",
    });
    const type = h("select", { name: "type", "aria-label": "type" }, options(TYPES, params.get("type"), "any type"));
    const scope = h("select", { name: "scope", "aria-label": "scope" }, options(SCOPES, params.get("scope"), "any scope"));
    const all = h("input", { type: "checkbox", name: "all", checked: params.get("all") === "1" });
    const forgotten = h("input", { type: "checkbox", name: "forgotten", checked: params.get("forgotten") === "1" });
    const every = h("input", { type: "checkbox", name: "every", checked: params.get("every") === "1" });
    const form = h(
      "form",
      {
        class: "search",
        role: "search",
        onsubmit: (ev) => {
          ev.preventDefault();
          const next = new URLSearchParams();
          if (input.value.trim()) next.set("q", input.value.trim());
          if (type.value) next.set("type", type.value);
          if (scope.value) next.set("scope", scope.value);
          if (all.checked) next.set("all", "1");
          if (forgotten.checked) next.set("forgotten", "1");
          if (every.checked) next.set("every", "1");
          const hash = `#/?${next}`;
          if (location.hash === hash) route();
          else location.hash = hash;
        },
      },
      input,
      type,
      scope,
      h("label", { title: "also what neither meaning nor words tie to the query" }, all, " weak matches"),
      h("label", {}, forgotten, " forgotten"),
      h("label", { title: "search: also other projects' memories (by default: this project's, its workspace's and global ones)" }, every, " all projects"),
      h("button", { type: "submit" }, "Search")
    );
    const results = h("section", { id: "results", "data-count": "" }, h("p", { class: "quiet" }, "Searching…"));
    show(form, results);
    let items;
    let heading;
    if (q) {
      const r = await read("recall", {
        query: q,
        limit: 30,
        content_type: type.value,
        scope: scope.value || (every.checked ? "all" : undefined),
        min_relevance: all.checked ? 0 : undefined,
        min_relative: all.checked ? 0 : undefined,
        include_deprecated: forgotten.checked || undefined,
      });
      items = r.results.map(hitCard);
      heading = `${r.results.length} found`;
    } else {
      const r = await read("list", {
        limit: 30,
        content_type: type.value,
        scope: scope.value,
        include_deprecated: forgotten.checked || undefined,
      });
      items = [h("ul", { class: "entries" }, r.entries.map(entryRow))];
      heading = r.entries.length ? "Recently changed" : "No memories yet";
    }
    results.setAttribute("data-count", String(q ? items.length : items[0].childElementCount));
    results.replaceChildren(h("h2", {}, heading), ...items);
  }

  // --- one memory ------------------------------------------------------------------------

  function field(name, value) {
    if (value === null || value === undefined || value === "") return null;
    return [h("dt", {}, name), h("dd", {}, value)];
  }

  async function act(method, params, done) {
    try {
      await change(method, params);
      toast(done);
      route();
    } catch (err) {
      toast(err.message, true);
    }
  }

  async function memoryView(id) {
    const [e, history, edges, near] = await Promise.all([
      read("get", { id }),
      read("history", { id }),
      read("edges", { id }),
      read("traverse", { id, direction: "both", depth: 1 }),
    ]);
    const contentOf = new Map(near.nodes.map((n) => [n.entry.id, n.entry.content]));
    const actions = h(
      "div",
      { class: "actions" },
      e.is_deprecated
        ? h("button", { onclick: () => act("restore", { id: e.id }, "restored") }, "Restore")
        : h("button", { onclick: () => act("forget", { id: e.id }, "forgotten (restorable)") }, "Forget"),
      h("button", { onclick: () => act("confirm", { id: e.id }, "confirmed") }, "Confirm"),
      h("a", { class: "button", href: graphHref(e.id) }, "Graph around it")
    );
    const edgeItems = edges.edges.map((edge) => {
      const out = edge.source_id === e.id;
      const other = out ? edge.target_id : edge.source_id;
      const label = contentOf.has(other) ? oneLine(contentOf.get(other), 120) : short(other);
      return h(
        "li",
        { class: `edge-row e-${edge.edge_type}` },
        h("span", { class: "dir" }, out ? "→" : "←"),
        h("span", { class: "etype" }, edge.edge_type),
        h("a", { href: memoryHref(other) }, label),
        h("span", { class: "quiet" }, ` ${fixed(edge.confidence)}`)
      );
    });
    const versions = history.versions.map((v, i) =>
      h(
        "tr",
        {},
        h("td", {}, `v${v.version}`),
        h("td", {}, v.change_type),
        h("td", { class: "when" }, v.changed_at),
        h("td", {}, oneLine(v.content, 200)),
        h(
          "td",
          {},
          i > 0 && v.content !== e.content
            ? h(
                "button",
                { class: "small", onclick: () => act("restore", { id: e.id, version: v.version }, `v${v.version} restored`) },
                "restore"
              )
            : null
        )
      )
    );
    show(
      h("h2", {}, typeBadge(e.content_type), " ", h("span", { class: "scope" }, scopeText(e)), flags(e)),
      h("pre", { class: "memory" }, e.content),
      actions,
      h(
        "dl",
        { class: "fields" },
        field("id", e.id),
        field("confidence", fixed(e.confidence)),
        field("importance", String(e.importance)),
        field("tags", e.tags.join(", ")),
        field("written by", writtenBy(e)),
        field("team space", e.space),
        field("source", [e.source_type, e.source_ref].filter(Boolean).join(" ")),
        field("created", e.created_at),
        field("updated", e.updated_at),
        field("accessed", e.accessed_at && `${e.accessed_at} (${e.access_count}×)`),
        field("confirmed", e.confirmed_at && `${e.confirmed_at} (${e.confirm_count}×)`),
        field("expires", e.expires_at),
        field("quarantined", e.quarantine_reason)
      ),
      h("h3", {}, "Links"),
      edgeItems.length ? h("ul", { class: "edges" }, edgeItems) : h("p", { class: "quiet" }, "none"),
      history.supersedes.length ? [h("h3", {}, "Supersedes"), h("ul", { class: "entries" }, history.supersedes.map(entryRow))] : null,
      history.superseded_by.length ? [h("h3", {}, "Superseded by"), h("ul", { class: "entries" }, history.superseded_by.map(entryRow))] : null,
      h("h3", {}, "History"),
      h("table", { class: "history" }, h("tbody", {}, versions))
    );
  }

  // --- the graph around a memory -----------------------------------------------------------

  // A small force layout: every pair repels, every link pulls toward a rest length, and a
  // weak pull keeps the whole near the middle. Enough for the few dozen nodes of a walk.
  function simulate(nodes, links, width, height, steps) {
    const rest = 170;
    for (let step = 0; step < steps; step++) {
      const alpha = 1 - step / steps;
      for (let i = 0; i < nodes.length; i++) {
        for (let j = i + 1; j < nodes.length; j++) {
          const a = nodes[i];
          const b = nodes[j];
          let dx = b.x - a.x;
          let dy = b.y - a.y;
          const d2 = Math.max(dx * dx + dy * dy, 25);
          const push = (6000 * alpha) / d2;
          const d = Math.sqrt(d2);
          dx /= d;
          dy /= d;
          a.vx -= dx * push;
          a.vy -= dy * push;
          b.vx += dx * push;
          b.vy += dy * push;
        }
      }
      for (const link of links) {
        const dx = link.target.x - link.source.x;
        const dy = link.target.y - link.source.y;
        const d = Math.max(Math.sqrt(dx * dx + dy * dy), 1);
        const pull = ((d - rest) / d) * 0.08 * alpha;
        link.source.vx += dx * pull;
        link.source.vy += dy * pull;
        link.target.vx -= dx * pull;
        link.target.vy -= dy * pull;
      }
      for (const n of nodes) {
        n.vx += (width / 2 - n.x) * 0.005 * alpha;
        n.vy += (height / 2 - n.y) * 0.005 * alpha;
        if (n.pinned) {
          n.vx = 0;
          n.vy = 0;
          continue;
        }
        n.x = Math.max(30, Math.min(width - 30, n.x + n.vx));
        n.y = Math.max(30, Math.min(height - 30, n.y + n.vy));
        n.vx *= 0.55;
        n.vy *= 0.55;
      }
    }
  }

  async function graphView(id, params) {
    const depth = Math.max(1, Math.min(4, Number(params.get("depth")) || 2));
    const walk = await read("traverse", { id, direction: "both", depth });
    const byId = new Map();
    const add = (entry, hops) => {
      if (!byId.has(entry.id)) byId.set(entry.id, { entry, hops, x: 0, y: 0, vx: 0, vy: 0 });
    };
    add(walk.start, 0);
    for (const n of walk.nodes) add(n.entry, n.depth);
    // The walk gives a tree; the links among the nodes it found complete the picture.
    const edgeById = new Map(walk.nodes.map((n) => [n.via.id, n.via]));
    const nodes = [...byId.values()];
    if (nodes.length <= 60) {
      const all = await Promise.all(nodes.map((n) => read("edges", { id: n.entry.id })));
      for (const r of all) for (const edge of r.edges) edgeById.set(edge.id, edge);
    }
    const links = [...edgeById.values()]
      .filter((edge) => byId.has(edge.source_id) && byId.has(edge.target_id))
      .map((edge) => ({ edge, source: byId.get(edge.source_id), target: byId.get(edge.target_id) }));

    const width = 960;
    const height = 600;
    nodes.forEach((n, i) => {
      const angle = (2 * Math.PI * i) / nodes.length;
      const radius = n.hops === 0 ? 0 : 80 * n.hops;
      n.x = width / 2 + radius * Math.cos(angle);
      n.y = height / 2 + radius * Math.sin(angle);
    });
    byId.get(walk.start.id).pinned = true;
    simulate(nodes, links, width, height, 300);

    const detail = h("aside", { class: "node-detail" }, h("p", { class: "quiet" }, "Click a memory to see it; drag to move it."));
    const svg = s("svg", {
      id: "graph",
      viewBox: `0 0 ${width} ${height}`,
      "data-node-count": nodes.length,
      "data-edge-count": links.length,
      role: "img",
      "aria-label": `graph of ${nodes.length} memories`,
    });
    svg.append(
      s(
        "defs",
        {},
        s(
          "marker",
          { id: "arrow", viewBox: "0 0 10 10", refX: 22, refY: 5, markerWidth: 7, markerHeight: 7, orient: "auto-start-reverse" },
          s("path", { d: "M 0 0 L 10 5 L 0 10 z", class: "arrowhead" })
        )
      )
    );
    const lines = links.map((link) => {
      const line = s("line", { class: `edge e-${link.edge.edge_type}`, "marker-end": "url(#arrow)" }, s("title", {}, link.edge.edge_type));
      svg.append(line);
      return [link, line];
    });
    const groups = nodes.map((n) => {
      const g = s(
        "g",
        { class: `node t-${n.entry.content_type}${n.hops === 0 ? " start" : ""}`, "data-id": n.entry.id, tabindex: 0 },
        s("circle", { r: n.hops === 0 ? 14 : 10 }),
        s("text", { y: n.hops === 0 ? 30 : 26, "text-anchor": "middle" }, oneLine(n.entry.content, 28)),
        s("title", {}, n.entry.content)
      );
      svg.append(g);
      return [n, g];
    });
    const draw = () => {
      for (const [link, line] of lines) {
        line.setAttribute("x1", link.source.x);
        line.setAttribute("y1", link.source.y);
        line.setAttribute("x2", link.target.x);
        line.setAttribute("y2", link.target.y);
      }
      for (const [n, g] of groups) g.setAttribute("transform", `translate(${n.x.toFixed(1)},${n.y.toFixed(1)})`);
    };
    draw();

    const select = (n) => {
      for (const [, g] of groups) g.classList.toggle("selected", g.dataset.id === n.entry.id);
      detail.replaceChildren(
        h("p", {}, typeBadge(n.entry.content_type), " ", h("span", { class: "scope" }, scopeText(n.entry))),
        h("p", { class: "memory" }, oneLine(n.entry.content, 600)),
        h("p", {}, h("a", { href: memoryHref(n.entry.id) }, "Open"), " · ", h("a", { href: graphHref(n.entry.id) }, "Center here"))
      );
    };
    let dragging = null;
    let moved = false;
    const point = (ev) => {
      const pt = new DOMPoint(ev.clientX, ev.clientY).matrixTransform(svg.getScreenCTM().inverse());
      return [pt.x, pt.y];
    };
    for (const [n, g] of groups) {
      g.addEventListener("pointerdown", (ev) => {
        dragging = n;
        moved = false;
        g.setPointerCapture(ev.pointerId);
      });
      g.addEventListener("pointermove", (ev) => {
        if (dragging !== n) return;
        [n.x, n.y] = point(ev);
        moved = true;
        n.pinned = true;
        simulate(nodes, links, width, height, 8);
        draw();
      });
      g.addEventListener("pointerup", () => {
        if (!moved) select(n);
        dragging = null;
      });
      g.addEventListener("keydown", (ev) => {
        if (ev.key === "Enter") select(n);
      });
    }

    const depthLinks = [1, 2, 3, 4].map((d) =>
      d === depth ? h("strong", {}, String(d)) : h("a", { href: `${graphHref(id)}?depth=${d}` }, String(d))
    );
    show(
      h(
        "h2",
        {},
        "Around ",
        h("a", { href: memoryHref(walk.start.id) }, oneLine(walk.start.content, 60)),
        h("span", { class: "quiet" }, ` · ${nodes.length} memories, ${links.length} links · depth `),
        depthLinks.flatMap((x) => [x, " "])
      ),
      h("div", { class: "graph" }, svg, detail),
      h(
        "p",
        { class: "legend" },
        TYPES.map((t) => typeBadge(t)),
        ["relates_to", "supersedes", "depends_on", "conflicts_with"].map((t) => h("span", { class: `legend-edge e-${t}` }, t))
      )
    );
  }

  // --- tasks ---------------------------------------------------------------------------------

  const TASK_MARKS = { open: "open", in_progress: "in progress", blocked: "blocked", done: "done" };

  async function tasksView() {
    const result = await read("task_list", { status: ["in_progress", "blocked", "open"], limit: 200 });
    const row = (t) =>
      h(
        "li",
        { "data-id": t.id, "data-status": t.status },
        h("span", { class: `task-status s-${t.status}` }, TASK_MARKS[t.status] || t.status),
        " ",
        h("a", { href: memoryHref(t.id) }, oneLine(t.content, 160)),
        h("span", { class: "scope" }, scopeText(t)),
        t.due ? h("span", { class: "quiet" }, ` due ${t.due}`) : null,
        t.importance !== 3 ? h("span", { class: "quiet" }, ` priority ${t.importance}`) : null
      );
    show(
      h("h2", {}, `Tasks not done (${result.tasks.length})`),
      result.tasks.length
        ? h("ul", { class: "entries tasks" }, result.tasks.map(row))
        : h("p", { class: "quiet" }, "No open tasks.")
    );
  }

  // --- health and review ---------------------------------------------------------------------

  async function healthView() {
    const [health, review, stats, hub] = await Promise.all([
      read("health", {}),
      read("review", { kind: "all", limit: 50 }),
      read("stats", {}),
      read("hub.status", {}).catch(() => null), // an older daemon has no hub: no line
    ]);
    const hubLine = hub && hub.configured
      ? h(
          "p",
          { class: "quiet", id: "hub-status" },
          `Team hub ${hub.url} (${hub.connected ? "connected" : "not connected"}): `,
          `spaces ${hub.spaces.map((s) => `${s.space} (${s.memories})`).join(", ") || "none"}; `,
          `lag ${hub.lag === null ? "unknown" : hub.lag}, outbox ${hub.outbox}, conflicts ${hub.conflicts}`,
          hub.last_error ? `; last error: ${hub.last_error}` : ""
        )
      : null;
    const count = (label, n) => h("div", { class: "count" }, h("span", { class: "n" }, String(n)), h("span", {}, label));
    const list = (title, entries, why) =>
      entries.length
        ? [h("h3", {}, `${title} (${entries.length})`, h("span", { class: "quiet" }, ` ${why}`)), h("ul", { class: "entries" }, entries.map(entryRow))]
        : null;
    show(
      h(
        "section",
        { class: "health" },
        h("div", { class: "score-box" }, h("span", { id: "health-score", "data-score": health.health_score }, fixed(health.health_score)), h("span", {}, "health")),
        count("active", health.active_entries),
        count("superseded", health.superseded_count),
        count("in conflict", health.conflicts_count),
        count("stale", health.stale_count),
        count("unlinked", health.orphan_count),
        count("links", stats.total_edges)
      ),
      h(
        "p",
        { class: "quiet" },
        `${stats.total} memories (${stats.deprecated} forgotten); `,
        Object.entries(stats.by_type).map(([t, n]) => `${t} ${n}`).join(", ")
      ),
      hubLine,
      h("h2", {}, "To review"),
      list("Stale", review.stale, "unused and decayed: confirm or forget"),
      list("In conflict", review.conflicted, "linked by conflicts_with"),
      list("Quarantined", review.quarantined, "read as instructions to an agent; kept out of recall"),
      list("Unlinked", review.orphan, "no links to anything"),
      review.stale.length + review.conflicted.length + review.quarantined.length + review.orphan.length
        ? null
        : h("p", { class: "quiet" }, "Nothing to review.")
    );
  }

  window.addEventListener("hashchange", route);
  route();
})();

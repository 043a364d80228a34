/* The table page (SERVER.md "Pages"): the campaign as this seat sees it, live.
 *
 * Plain JavaScript, no build step, no framework. It reads the same JSON API as any
 * other client (zones, history, explain, checkpoint), listens to the seat's stream,
 * and records actions with POST .../actions. Everything that comes from the server
 * (card names, summaries, messages) goes into the page as text (textContent or text
 * nodes), never as HTML. A card the seat may not identify arrives as {"id": null} and
 * is drawn as a card back: nothing about it is put in the page.
 *
 * Its texts are in the page's language: each is written in English inside _("..."),
 * ngettext(...) or pgettext(...) with {named} placeholders filled in by fmt() after
 * translation, as in the server's Python; `python -m ledger.locale` extracts them into
 * the catalog, and the server embeds their translations in the page (pages.script_texts).
 * The game's words are not the script's: the server gives the suits' names and the seat's
 * own zones with the texts (pages.page_words, from ledger.terms), and every zone's name
 * with each zones reply (zone_names); a zone id stays an id, in the API and in data-zone.
 */
"use strict";

(() => {
  const root = document.getElementById("table");
  if (!root) return;

  // -- the page's language -----------------------------------------------------------
  // The server embeds this script's texts in the request's language (#ledger-texts): each
  // by its English id, a pgettext one as "context\u0004id", a plural as its forms for 0,
  // 1 and 2 or more. A text it lacks is shown in English.
  const SPEECH = embedded("ledger-texts");
  const TEXTS = SPEECH.texts || {};
  const WORDS = SPEECH.words || {};
  const LANG = SPEECH.lang || document.documentElement.lang || "en";

  function embedded(id) {
    const node = document.getElementById(id);
    try {
      return (node && JSON.parse(node.textContent)) || {};
    } catch {
      return {};
    }
  }

  /** A text in the page's language. */
  function _(text) {
    const found = TEXTS[text];
    return typeof found === "string" && found ? found : text;
  }

  /** A short text in the sense `context` names (a zone's kind, a position). */
  function pgettext(context, text) {
    const found = TEXTS[context + "\u0004" + text];
    return typeof found === "string" && found ? found : text;
  }

  /** The form of a text for the count `n`, as the page's language counts. */
  function ngettext(singular, plural, n) {
    return form(TEXTS[singular], singular, plural, n);
  }

  /** ngettext, for a text in the sense `context` names. */
  function npgettext(context, singular, plural, n) {
    return form(TEXTS[context + "\u0004" + singular], singular, plural, n);
  }

  function form(forms, singular, plural, n) {
    const index = Math.min(Math.max(Math.trunc(Number(n)) || 0, 0), 2);
    if (Array.isArray(forms) && typeof forms[index] === "string" && forms[index]) return forms[index];
    return n === 1 ? singular : plural;
  }

  /** A text with its {placeholders} filled in (after translation). */
  function fmt(text, values) {
    return text.replace(/\{(\w+)\}/g, (whole, name) =>
      (Object.prototype.hasOwnProperty.call(values, name) ? String(values[name]) : whole));
  }

  const D = root.dataset;
  const CAMPAIGN = D.campaign;
  const ACTOR = D.actor || "";
  const HEROES = words(D.heroes);
  const API = "/api/campaigns/" + encodeURIComponent(CAMPAIGN) + "/";
  const MASTER = ACTOR === "master";
  const CAN_ACT = ACTOR !== "";
  const HISTORY_PAGE = 30;
  const SUITS = ["house", "class", "entity", "item", "skill", "companion", "event"];
  // the game's words, from the server (ledger.terms): a suit's name ("Skill"), a suit inside
  // a text ("skill 2"), and the names of this hero's own zones ("Your Inventory")
  const SUIT_NAMES = WORDS.suits || {};
  const SUIT_WORDS = WORDS.suit_words || {};
  const OWN_ZONES = WORDS.own_zones || {};
  const ACTION_NAMES = WORDS.actions || {};  // a recorded action's name ("compra" for draw)
  // Every action the API takes (bodies.py), for the master's "any action" form, with a
  // starting set of parameters for each.
  const ANY_ACTIONS = {
    "draw": {stack: "deck:item", count: 1, to: "inventory:HERO"},
    "send": {cards: [], to: "scenario"},
    "discard": {cards: []},
    "bury": {cards: []},
    "exile": {cards: []},
    "shuffle": {stack: "deck:item"},
    "search": {stack: "deck:item", take: [], to: "inventory:HERO"},
    "reveal": {cards: []},
    "hide": {cards: []},
    "exhaust": {cards: []},
    "restore": {cards: []},
    "attach": {card: "", to: ""},
    "detach": {card: ""},
    "trade": {hero: "HERO", take: [], give: []},
    "activate": {card: "", target: "", note: ""},
    "add": {cards: [], to: "deck:item", position: "top"},
    "hero add": {hero: "", name: "", knowledge: 0},
    "hero knowledge": {hero: "HERO", knowledge: 1},
    "location add": {location: "", access: {item: 1}},
    "location set": {location: "", access: {item: 1}},
    "travel": {hero: "HERO", location: ""},
    "battle start": {},
    "battle end": {},
    "access": {location: "", suit: "item", level: 1, by: null},
    "obtain": {hero: "HERO", card: "", by: "progression"},
    "undo": {},
    "redo": {},
  };

  const $ = (id) => document.getElementById(id);
  const ui = {
    seq: $("seq"), live: $("live"), checkpoint: $("checkpoint"), copy: $("copy-checkpoint"),
    timeline: $("timeline"), timelineValue: $("timeline-value"), banner: $("replay-banner"),
    replaySeq: $("replay-seq"), backToLive: $("back-to-live"), zones: $("zones"), history: $("history"),
    historyMore: $("history-more"), actions: $("actions"), selection: $("selection"),
    clearSelection: $("clear-selection"), buttons: $("buttons"), panel: $("panel"), message: $("message"),
  };

  const state = {
    seq: 0,                 // the latest seq this page knows of
    checkpoint: null,       // {seq, head}
    live: null,             // the latest live zones reply
    shown: null,            // the zones reply on screen (live, or the replayed seq)
    replay: null,           // the seq being replayed, or null when live
    replayTicket: 0,
    selected: new Map(),    // card id -> {zone, attached}
    stack: null,            // a selected deck (zone id)
    panel: null,            // the open panel's action name
    busy: false,
    acted: 0,               // actions sent and forms opened: whose message is the latest
    historyLimit: HISTORY_PAGE,
    history: [],            // newest first
    explained: new Set(),   // seqs whose explanation is open
    explanations: new Map(),
    opened: new Map(),      // zone -> whether its contents are open (the seat's choice)
  };

  // -- small helpers -------------------------------------------------------------
  function words(text) {
    return (text || "").split(/\s+/).filter(Boolean);
  }

  /** An element; attributes as given (set as attributes or properties, never HTML), children as nodes or text. */
  function el(tag, attrs, ...children) {
    const node = document.createElement(tag);
    for (const [key, value] of Object.entries(attrs || {})) {
      if (value === null || value === undefined || value === false) continue;
      if (key === "class") node.className = value;
      else if (key === "text") node.textContent = String(value);
      else if (key.startsWith("on")) node.addEventListener(key.slice(2), value);
      else node.setAttribute(key, value === true ? "" : String(value));
    }
    for (const child of children) {
      if (child === null || child === undefined || child === false) continue;
      node.append(child); // a string becomes a text node
    }
    return node;
  }

  function suitClass(suit) {
    return SUITS.includes(suit) ? suit : "other";
  }

  /** A suit in words, as a part of a text ("item 2"), or the id itself. */
  function suitWord(suit) {
    return SUIT_WORDS[suit] || suit;
  }

  /** A suit's name ("Skill"), or the id itself. */
  function suitName(suit) {
    return SUIT_NAMES[suit] || suit;
  }

  /** The campaign's heroes as the latest zones reply has them (a hero added during the
   * session too), else as the page was served. */
  function currentHeroes() {
    const live = state.live && state.live.heroes;
    return live ? Object.keys(live) : HEROES;
  }

  /** A hero as people call them (the name given with `hero add`), else their id. */
  function heroName(hero) {
    for (const view of [state.shown, state.live]) {
      const facts = view && view.heroes && view.heroes[hero];
      if (facts && facts.name) return facts.name;
    }
    return hero;
  }

  /** A choice of heroes: each by id, shown by name. */
  function heroOptions(heroes) {
    return heroes.map((h) => [h, heroName(h)]);
  }

  function heroesIn(zones) {
    const found = new Set(HEROES);
    for (const zone of Object.keys(zones || {})) {
      const m = /^(table|inventory|extra):(.+)$/.exec(zone);
      if (m) found.add(m[2]);
    }
    return [...found];
  }

  /** The hero a zone belongs to (its last part names a hero), or null. */
  function ownerOf(zone, heroes) {
    const parts = zone.split(":");
    if (parts.length < 2) return null;
    const last = parts[parts.length - 1];
    return heroes.includes(last) ? last : null;
  }

  /** A zone's name: this hero's own zones as the page names them ("Your Inventory"), any
   * other as the zones reply names it ("bo's Inventory", "Item Deck"), else its id. */
  function zoneLabel(zone) {
    const role = zone.split(":")[0];
    if (ACTOR && zone === role + ":" + ACTOR && OWN_ZONES[role]) return OWN_ZONES[role];
    for (const view of [state.shown, state.live]) {
      const name = view && view.zone_names && view.zone_names[zone];
      if (name) return name;
    }
    return zone;
  }

  function cardName(id) {
    const info = state.shown && state.shown.cards && state.shown.cards[id];
    return (info && info.name) || knownNames.get(id) || id;
  }

  // The names of the cards this seat was shown since the page opened, and of the catalog's
  // cards once asked for: a card the history names, back in a face-down deck since, is still
  // called by its name there.
  const knownNames = new Map();
  function learnNames(view) {
    for (const [id, info] of Object.entries((view && view.cards) || {})) if (info && info.name) knownNames.set(id, info.name);
  }

  // The catalog (every card's id, name, suit and level) is for the seats that play (the public
  // seat gets 403): the search form asks for it; the history asks for the names of the cards
  // its entries list that the page cannot name, each once (a catalog may hold many thousands).
  function learnCatalog(known) {
    for (const [id, card] of Object.entries(known.cards || {})) if (!knownNames.has(id)) knownNames.set(id, card.name);
    return known;
  }
  const namesAsked = new Set();
  function nameTheUnnamed(entries) {
    if (!CAN_ACT) return;
    const ids = [...new Set(entries.flatMap((entry) => entry.cards || []))]
      .filter((id) => cardName(id) === id && !namesAsked.has(id)).slice(0, 100);  // a URL of a few kB; the rest next time
    if (!ids.length) return;
    ids.forEach((id) => namesAsked.add(id));
    getJSON("catalog?ids=" + encodeURIComponent(ids.join(","))).then((known) => {
      learnCatalog(known);
      renderHistory();
    }, () => setTimeout(() => ids.forEach((id) => namesAsked.delete(id)), 30000));  // the ids stay meanwhile; asked again later
  }

  /** ``text`` (a history summary, or a line of its explanation) with card and zone ids called
   * by their names, in the page's language (a QA pass: "inventory:ana" and "depot" read as
   * code, and in Portuguese as English); the text as recorded stays on hover. A word is an id
   * when it is one as a whole (a "." or ":" after it is the sentence's): a card the entry lists
   * in ``cards``, or another the page knows whose id is no plain word nor number ("event-festival",
   * not a catalog's "rope" or "43"); a zone of the table, a one-word one ("discard", "depot") only where the
   * page is not in English, whose sentences use those words as words ("every discard pile's
   * access"). The text names no card the seat may not see: it already holds the id. */
  function named(text, cards) {
    if (!text) return text;
    const listed = new Set(cards || []);
    const zones = (state.live && state.live.zone_names) || {};
    const words = !/^en\b/i.test(LANG);
    const nameOf = (id) => {
      if (Object.prototype.hasOwnProperty.call(zones, id)) return words || id.includes(":") ? zoneLabel(id) : id;
      return listed.has(id) || (/[a-z]/.test(id) && /[^a-z]/.test(id)) ? cardName(id) : id;  // not "43": a seq
    };
    return text.replace(/(?<![\p{L}\p{N}_.:@-])[a-z0-9][a-z0-9_.:-]*(?![\p{L}\p{N}])/gu, (token) => {
      for (let id = token; ; id = id.slice(0, -1)) {
        const name = nameOf(id);
        if (name !== id) return name + token.slice(id.length);
        if (!/[^.:-][.:-]$/.test(id)) return token;
      }
    });
  }

  // -- talking to the server ---------------------------------------------------------
  async function getJSON(path) {
    const res = await fetch(API + path, {credentials: "same-origin", headers: {Accept: "application/json"}});
    const data = await bodyOf(res);
    if (!res.ok) {
      const err = new Error(errorText(res.status, data));
      err.status = res.status;
      err.retryAfter = Number(res.headers.get("Retry-After")) || 0;
      throw err;
    }
    return data;
  }

  // a reply's JSON, or null when it has none (a proxy's error page, a cut connection)
  async function bodyOf(res) {
    try {
      return await res.json();
    } catch {
      return null;
    }
  }

  function errorText(status, data) {
    if (data && data.error && data.error.message) return pageWords(data.error.message);
    if (status === 401) return _("this device holds no seat: open your join link again");
    return fmt(_("the server answered {status}"), {status});
  }

  /** A refusal as the page says it: the rules write their hints for the command line, and a
   * bracket that is a `ledger` command ("(ledger travel bo LOCATION)") is left out here, where
   * nobody types one (a QA pass: it sat beside the page's own Travel… button); a bracket that
   * only mentions the ledger ("nothing was recorded: ledger history shows which") stays. */
  function pageWords(message) {
    return named(message.replace(/\s*\(ledger [^()]*\)/g, ""), []);  // and the cards and zones by name, as the history
  }

  function say(text, kind) {
    if (!ui.message) return;
    ui.message.textContent = text || "";
    ui.message.dataset.kind = kind || "";
  }

  async function act(body) {
    if (!CAN_ACT || state.replay !== null) return false;
    if (state.busy) {  // one at a time (a QA pass: a tap meanwhile did nothing, and said nothing)
      say(_("one action at a time: the last one is still on its way"), "pending");
      return false;
    }
    state.busy = true;
    root.classList.add("busy");
    const ticket = ++state.acted;
    say("…", "pending");
    let data;
    try {
      const res = await fetch(API + "actions", {
        method: "POST", credentials: "same-origin",
        headers: {"Content-Type": "application/json", Accept: "application/json"},
        body: JSON.stringify(body),
      });
      data = await bodyOf(res);
      if (!res.ok) {
        say(errorText(res.status, data), "error"); // refused: the selection and the form stay
        return false;
      }
      if (ticket === state.acted) {  // no form opened meanwhile: the player is not on to the next thing
        clearSelection();
        closePanel();
      }
      noteSeq(data.seq, data.checkpoint);
    } catch (err) {
      say(fmt(_("the table server cannot be reached ({reason})"), {reason: err.message}), "error");
      return false;
    } finally {
      state.busy = false;  // the next action may go while the table is read again
      root.classList.remove("busy");
    }
    // The table is read again before the action is said done, so that a form opened then
    // offers what this one made (CI: a hero just added was missing from the knowledge form).
    await refresh();
    if (ticket !== state.acted) return true;  // a later action, or a form opened since, says more
    const failed = ui.message.dataset.kind === "error" ? ui.message.textContent : "";
    const summaries = (data.events || []).map((e) => e.summary).filter(Boolean);
    const listed = (data.events || []).flatMap((e) => e.cards || []);  // named as the history names them
    const done = fmt(_("seq {seq} · {what}"), {seq: data.seq, what: named(summaries.join("; "), listed) || data.action});
    // recorded all the same: said, lest it be done twice (a review: only the refresh's error showed)
    say(failed ? fmt(_("{done} (recorded; the table could not be read again: {reason})"), {done, reason: failed}) : done,
      failed ? "error" : "ok");
    return true;
  }

  // -- seq, checkpoint, timeline ------------------------------------------------------
  function noteSeq(seq, checkpoint) {
    if (typeof seq === "number" && seq > state.seq) {
      state.seq = seq;
      ui.seq.textContent = String(seq);
      ui.timeline.max = String(seq);
      if (state.replay === null) {
        ui.timeline.value = String(seq);
        ui.timelineValue.textContent = fmt(_("live · seq {seq}"), {seq});
      }
    }
    if (checkpoint && (!state.checkpoint || checkpoint.seq >= state.checkpoint.seq)) {
      state.checkpoint = checkpoint;
      const text = checkpoint.seq + ":" + checkpoint.head;
      ui.checkpoint.textContent = checkpoint.seq + ":" + String(checkpoint.head).slice(0, 12) + "…";
      ui.checkpoint.title = text;
      ui.checkpoint.dataset.checkpoint = text;
    }
  }

  ui.copy.addEventListener("click", async () => {
    const text = ui.checkpoint.dataset.checkpoint;
    if (!text) return;
    let done = false;
    try {
      if (navigator.clipboard && window.isSecureContext) {
        await navigator.clipboard.writeText(text);
        done = true;
      }
    } catch {
      done = false;
    }
    if (!done) {
      const area = el("textarea", {class: "copy-area", readonly: true});
      area.value = text;
      document.body.append(area);
      area.select();
      try {
        done = document.execCommand("copy");
      } catch {
        done = false;
      }
      area.remove();
    }
    ui.copy.textContent = done ? _("copied") : _("select & copy");
    if (!done) window.getSelection().selectAllChildren(ui.checkpoint);
    setTimeout(() => { ui.copy.textContent = _("copy"); }, 1500);
  });

  let replayTimer = null;
  ui.timeline.addEventListener("input", () => {
    const seq = Number(ui.timeline.value);
    ui.timelineValue.textContent = seq >= state.seq ? fmt(_("live · seq {seq}"), {seq: state.seq}) : fmt(_("seq {seq}"), {seq});
    clearTimeout(replayTimer);
    replayTimer = setTimeout(() => replayTo(seq), 120);
  });
  ui.timeline.addEventListener("change", () => {
    clearTimeout(replayTimer);
    replayTo(Number(ui.timeline.value));
  });
  ui.backToLive.addEventListener("click", () => backToLive());

  async function replayTo(seq) {
    if (!(seq >= 1) || seq >= state.seq) {
      backToLive();
      return;
    }
    if (state.replay === seq) return;
    const ticket = ++state.replayTicket;
    state.replay = seq;
    ui.timeline.value = String(seq);
    ui.timelineValue.textContent = fmt(_("seq {seq}"), {seq});
    ui.replaySeq.textContent = String(seq);
    ui.banner.hidden = false;
    root.classList.add("replaying");
    closePanel();
    setActionsEnabled();
    try {
      const data = await getJSON("zones?at=" + seq);
      if (ticket !== state.replayTicket) return; // the slider moved on meanwhile
      state.shown = data;
      learnNames(data);
      renderZones();
      renderHistory();
    } catch (err) {
      if (ticket === state.replayTicket) say(err.message, "error");
    }
  }

  function backToLive() {
    state.replayTicket++;
    const wasReplaying = state.replay !== null;
    state.replay = null;
    ui.banner.hidden = true;
    root.classList.remove("replaying");
    ui.timeline.value = String(state.seq);
    ui.timelineValue.textContent = fmt(_("live · seq {seq}"), {seq: state.seq});
    setActionsEnabled();
    if (wasReplaying && state.live) {
      state.shown = state.live;
      renderZones();
      renderHistory();
    }
    refresh();
  }

  // -- keeping up: the stream and refreshes ------------------------------------------
  let refreshing = null;
  let again = false;

  function refresh() {
    if (refreshing) {
      again = true;
      return refreshing;
    }
    refreshing = (async () => {
      try {
        do {
          again = false;
          await refreshOnce();
        } while (again);
      } finally {
        refreshing = null;
      }
    })();
    return refreshing;
  }

  async function refreshOnce() {
    try {
      const [zones, history] = await Promise.all([
        getJSON("zones"), latestHistory(state.historyLimit),
      ]);
      state.live = zones;
      learnNames(zones);
      noteSeq(zones.seq, zones.checkpoint);
      state.history = history.slice().reverse();
      ui.historyMore.hidden = !(history.length >= state.historyLimit && history[0] && history[0].seq > 1);
      if (state.replay === null) {
        state.shown = zones;
        renderZones();
      }
      renderHistory();
    } catch (err) {
      say(err.message, "error");
      if (err.status === 401 || err.status === 403) setLive("closed", _("no seat"));
      if (err.status === 429 || err.status === 503) refreshLater(err.retryAfter || 5);
    }
  }

  // The server cannot serve this seat just now (its share of the server's time, or the
  // database): the table is asked for again when the reply said to (Retry-After), once.
  let later = null;
  function refreshLater(seconds) {
    if (later) return;
    later = setTimeout(() => {
      later = null;
      refresh();
    }, Math.min(seconds, 60) * 1000);
  }

  // The latest `count` entries of the history, oldest first. The server gives at most a
  // few thousand a request, the latest; older ones are asked for with `to`, page by page.
  async function latestHistory(count) {
    let entries = [];
    let to = null;
    while (entries.length < count) {
      const page = await getJSON("history?limit=" + (count - entries.length) + (to === null ? "" : "&to=" + to));
      entries = page.concat(entries);
      if (!page.length || page[0].seq <= 1) break;
      to = page[0].seq - 1;
    }
    return entries;
  }

  let stream = null;
  let missed = false;

  function setLive(kind, text) {
    ui.live.dataset.state = kind;
    ui.live.textContent = text;
  }

  const RETRY_FIRST = 3000, RETRY_MOST = 30000;
  let retryDelay = RETRY_FIRST;

  // The server refused the stream or is gone. Asked why first: a seat revoked (or a link
  // no longer valid) reloads once, to the page that says so, instead of knocking every few
  // seconds (each knock a failed attempt, until the server turns the address away); a
  // busy or absent server is tried again later, less often each time.
  async function streamRefused() {
    let status = 0, wait = 0, data = null;
    try {
      const reply = await fetch(API + "checkpoint", {credentials: "same-origin", cache: "no-store",
                                                     headers: {Accept: "application/json"}});
      status = reply.status;
      wait = (Number(reply.headers.get("Retry-After")) || 0) * 1000;
      data = await bodyOf(reply);
    } catch { /* the server is gone: try again in a while */ }
    if (status === 401 || status === 403) {
      setLive("closed", _("closed"));
      say(fmt(_("{reason}; reloading…"), {reason: errorText(status, data)}), "error");
      setTimeout(() => window.location.reload(), 1500);
      return;
    }
    setTimeout(connect, Math.max(wait, retryDelay));
    retryDelay = Math.min(retryDelay * 2, RETRY_MOST);
  }

  function connect() {
    if (stream) stream.close();
    setLive("connecting", _("connecting…"));
    stream = new EventSource(API + "stream");
    stream.onopen = () => {
      retryDelay = RETRY_FIRST;
      setLive("live", _("live"));
      if (missed) {
        missed = false;
        refresh(); // catch up on what happened while the stream was down
      }
    };
    stream.onerror = () => {
      missed = true;
      setLive("reconnecting", _("reconnecting…"));
      if (stream.readyState === EventSource.CLOSED) streamRefused();
    };
    stream.addEventListener("action", (event) => {
      let data = null;
      try {
        data = JSON.parse(event.data);
      } catch {
        return;
      }
      noteSeq(data.seq, data.checkpoint);
      refresh();
    });
    stream.addEventListener("closed", (event) => {
      stream.close();
      let reason = _("the stream was closed");
      try {
        reason = JSON.parse(event.data).reason || reason;
      } catch { /* keep the default */ }
      setLive("closed", _("closed"));
      say(fmt(_("{reason}; reloading…"), {reason}), "error");
      setTimeout(() => window.location.reload(), 3000);
    });
  }

  // -- the zones -----------------------------------------------------------------------
  function orderZones(zones) {
    const heroes = heroesIn(zones);
    const ids = Object.keys(zones);
    const mine = [];
    const shared = [];
    const decks = [];
    const others = new Map();
    let box = null;
    const kindRank = {table: 0, inventory: 1, extra: 2};
    for (const zone of ids) {
      const owner = ownerOf(zone, heroes);
      if (zone === "box") box = zone;
      else if (owner && owner === ACTOR) mine.push(zone);
      else if (owner) {
        if (!others.has(owner)) others.set(owner, []);
        others.get(owner).push(zone);
      } else if (zone.startsWith("deck:")) decks.push(zone);
      else shared.push(zone);
    }
    const byKind = (a, b) => (kindRank[a.split(":")[0]] ?? 9) - (kindRank[b.split(":")[0]] ?? 9);
    mine.sort(byKind);
    const sharedRank = {scenario: 0, discard: 1, depot: 3, limbo: 4};
    shared.sort((a, b) => (sharedRank[a.split(":")[0]] ?? 5) - (sharedRank[b.split(":")[0]] ?? 5));
    const front = shared.filter((z) => (sharedRank[z.split(":")[0]] ?? 5) < 2);
    const back = shared.filter((z) => (sharedRank[z.split(":")[0]] ?? 5) >= 2);
    const groups = [];
    if (mine.length) groups.push({title: fmt(_("Your hero · {hero}"), {hero: heroName(ACTOR)}) + heroFacts(ACTOR), zones: mine, kind: "mine"});
    const battle = state.shown && state.shown.battle ? " · " + _("battle on: trading closed unless an effect opens it") : "";
    groups.push({title: _("Shared") + battle, zones: [...front, ...decks, ...back], kind: "shared"});
    const otherHeroes = [...others.keys()].sort((a, b) => heroes.indexOf(a) - heroes.indexOf(b));
    for (const hero of otherHeroes) {
      groups.push({title: (hero === ACTOR ? _("You") : fmt(_("Hero · {hero}"), {hero: heroName(hero)})) + heroFacts(hero),
                   zones: others.get(hero).sort(byKind), kind: "hero"});
    }
    if (box) groups.push({title: _("Not in play"), zones: [box], kind: "box"});
    return {groups, heroes};
  }

  // " · at village (item 2, skill 1) · knowledge 2": where a hero stands decides what they may trade
  function heroFacts(hero) {
    const view = state.shown;
    const facts = view && view.heroes && view.heroes[hero];
    if (!facts) return "";
    let text = "";
    if (facts.location) {
      const place = (view.locations || {})[facts.location];
      const levels = place ? Object.entries(Object.assign({}, view.battle ? {} : place.access,  // a battle closes every pile
        Object.fromEntries(Object.entries(place.effects || {}).filter(([, e]) => e.in_force !== false)
          .map(([suit, e]) => [suit, e.level]))))
        .filter(([, level]) => level > 0).map(([suit, level]) => suitWord(suit) + " " + level) : [];
      text += " · " + fmt(_("at {place}"), {place: facts.location}) + (levels.length ? " (" + levels.join(", ") + ")" : "");
    }
    return text + " · " + fmt(_("knowledge {level}"), {level: facts.knowledge});
  }

  function renderZones() {
    const view = state.shown;
    if (!view) return;
    pruneSelection(view);
    const {groups, heroes} = orderZones(view.zones);
    const focused = document.activeElement;
    const focusKey = focused && ui.zones.contains(focused)
      ? (focused.dataset.card ? '[data-card="' + CSS.escape(focused.dataset.card) + '"]'
        : focused.dataset.stack ? '[data-stack="' + CSS.escape(focused.dataset.stack) + '"]' : null)
      : null;
    const frag = document.createDocumentFragment();
    for (const group of groups) {
      const wrap = el("div", {class: "group group-" + group.kind});
      wrap.append(el("h2", {class: "group-title", text: group.title}));
      const grid = el("div", {class: "zone-grid"});
      for (const zone of group.zones) grid.append(renderZone(zone, view.zones[zone], heroes));
      wrap.append(grid);
      frag.append(wrap);
    }
    ui.zones.replaceChildren(frag);
    if (focusKey) {
      const again = ui.zones.querySelector(focusKey);
      if (again) again.focus({preventScroll: true}); // a refresh keeps the keyboard where it was
    }
    renderSelection();
  }

  function renderZone(zone, entries, heroes) {
    entries = entries || [];
    const isDeck = zone.startsWith("deck:");
    const isBox = zone === "box";
    const classes = ["zone"];
    if (!entries.length) classes.push("empty");
    if (isDeck) classes.push("deck");
    if (isBox) classes.push("box");
    if (ownerOf(zone, heroes) === ACTOR && ACTOR) classes.push("mine");
    const section = el("section", {class: classes.join(" "), "data-zone": zone, "data-count": entries.length});
    const head = el("header", {class: "zone-head"},
      el("h3", {class: "zone-name", text: zoneLabel(zone)}),
      el("span", {class: "zone-id", text: zone}),
      el("span", {class: "count", title: _("cards"), text: String(entries.length)}));
    section.append(head);
    if (!entries.length && !isDeck) return section;

    if (isDeck && !entries.length) {
      // an empty deck stays small; tapping it still picks it (a draw refills it from the depot)
      if (CAN_ACT) section.append(pileTile(zone, entries));
      return section;
    }
    if (isDeck || isBox) {
      const row = el("div", {class: "cards"});
      if (isDeck) row.append(pileTile(zone, entries));
      const known = entries.some((e) => e.id);
      if (known) {
        const open = state.opened.has(zone) ? state.opened.get(zone) : !isBox;
        const details = el("details", {class: "contents", open});
        details.addEventListener("toggle", () => state.opened.set(zone, details.open));
        const n = entries.length;
        details.append(el("summary", {text: isBox ? fmt(npgettext("zone contents", "show the {n} card", "show the {n} cards", n), {n})
          : fmt(npgettext("zone contents", "{n} card", "{n} cards, top first", n), {n})}));
        const inner = el("div", {class: "cards"});
        entries.forEach((entry, index) => inner.append(cardGroup(entry, zone, index)));
        details.append(inner);
        row.append(details);
      }
      section.append(row);
      return section;
    }
    const row = el("div", {class: "cards"});
    entries.forEach((entry, index) => row.append(cardGroup(entry, zone, index)));
    section.append(row);
    return section;
  }

  function pileTile(zone, entries) {
    const selected = state.stack === zone;
    const tag = CAN_ACT ? "button" : "div";
    const attrs = {
      class: "pile" + (selected ? " selected" : "") + (entries.length ? "" : " pile-empty"),
      "data-stack": zone, title: zone,
    };
    if (CAN_ACT) {
      attrs.type = "button";
      attrs["aria-pressed"] = selected ? "true" : "false";
      attrs.onclick = () => toggleStack(zone);
    }
    if (!entries.length) return el(tag, attrs, el("span", {class: "pile-hint", text: selected ? _("selected") : _("empty · pick")}));
    return el(tag, attrs,
      el("span", {class: "card back", "aria-hidden": "true"}),
      el("span", {class: "pile-count", text: "×" + entries.length}),
      CAN_ACT ? el("span", {class: "pile-hint", text: selected ? _("selected") : _("tap to pick")}) : null);
  }

  function cardGroup(entry, zone, index) {
    const attached = entry.attached || [];
    if (!attached.length) return cardTile(entry, zone);
    const group = el("div", {class: "host-group"});
    group.append(cardTile(entry, zone));
    const under = el("div", {class: "attachments"});
    for (const id of attached) under.append(attachedTile(id, zone));
    group.append(under);
    return group;
  }

  function cardTile(entry, zone) {
    const id = entry.id;
    if (!id) {
      // a card this seat may not identify: a back, and nothing else
      return el("div", {class: "card back", role: "img", "aria-label": _("a face-down card")});
    }
    const info = (state.shown.cards && state.shown.cards[id]) || {};
    const suit = suitClass(info.suit);
    const selected = state.selected.has(id);
    const classes = ["card", "face", "suit-" + suit];
    if (entry.face === "down") classes.push("down");
    if (entry.exhausted) classes.push("exhausted");
    if (selected) classes.push("selected");
    const tag = CAN_ACT ? "button" : "div";
    const attrs = {class: classes.join(" "), "data-card": id, title: id};
    if (CAN_ACT) {
      attrs.type = "button";
      attrs["aria-pressed"] = selected ? "true" : "false";
      attrs.onclick = () => toggleCard(id, zone, false);
    }
    const marks = entry.face === "down" || entry.exhausted ? el("span", {class: "marks"},
      entry.face === "down" ? el("span", {class: "mark mark-down", text: _("face down")}) : null,
      entry.exhausted ? el("span", {class: "mark mark-exhausted", text: _("exhausted")}) : null) : null;
    const hasValue = info.value !== null && info.value !== undefined;
    // the suit has the top row to itself (a suit's name in Portuguese, "Companheiro", was cut
    // short beside the level on a phone); the level sits at the foot, beside the value
    return el(tag, attrs,
      el("span", {class: "card-top"},
        el("span", {class: "card-suit", text: info.suit ? suitName(info.suit) : "?"})),
      el("span", {class: "card-name", text: info.name || id}),
      el("span", {class: "card-id", text: id}),
      marks,
      el("span", {class: "card-foot"},
        hasValue ? el("span", {class: "card-value", title: _("value"), text: "◆ " + info.value}) : null,
        // TRANSLATORS: a card's level, short: "L2"
        info.level !== null && info.level !== undefined ? el("span", {class: "card-level", title: _("level"), text: fmt(_("L{level}"), {level: info.level})}) : null));
  }

  // a card hanging from the group's card, directly or through another attached card
  function attachedTile(id, zone) {
    if (!id) return el("div", {class: "card back attached", role: "img", "aria-label": _("a hidden attached card")});
    const info = (state.shown.cards && state.shown.cards[id]) || {};
    const host = info.attached_to;
    const selected = state.selected.has(id);
    const tag = CAN_ACT ? "button" : "div";
    const attrs = {
      class: "card face attached suit-" + suitClass(info.suit) + (selected ? " selected" : ""),
      "data-card": id, "data-host": host || "",
      title: host ? fmt(_("{card} (attached to {host})"), {card: id, host}) : fmt(_("{card} (attached to a hidden card)"), {card: id}),
    };
    if (CAN_ACT) {
      attrs.type = "button";
      attrs["aria-pressed"] = selected ? "true" : "false";
      attrs.onclick = () => toggleCard(id, zone, true);
    }
    return el(tag, attrs,
      el("span", {class: "card-suit", text: info.suit ? suitName(info.suit) : "?"}),
      el("span", {class: "card-name", text: info.name || id}),
      info.value !== null && info.value !== undefined ? el("span", {class: "card-value", text: "◆ " + info.value}) : null);
  }

  // -- selection -----------------------------------------------------------------------
  function toggleCard(id, zone, attached) {
    if (state.replay !== null || !CAN_ACT) return;
    if (state.selected.has(id)) state.selected.delete(id);
    else state.selected.set(id, {zone, attached});
    closePanel();
    renderZones();
  }

  function toggleStack(zone) {
    if (state.replay !== null || !CAN_ACT) return;
    state.stack = state.stack === zone ? null : zone;
    closePanel();
    renderZones();
  }

  function clearSelection() {
    state.selected.clear();
    state.stack = null;
    if (state.shown) renderZones();
  }

  /** Drops from the selection what is no longer where it was (another seat's action). */
  function pruneSelection(view) {
    if (state.replay !== null) return;
    const where = new Map();
    for (const [zone, entries] of Object.entries(view.zones)) {
      for (const entry of entries) {
        if (entry.id) where.set(entry.id, {zone, attached: false});
        for (const att of entry.attached || []) if (att) where.set(att, {zone, attached: true});
      }
    }
    for (const id of [...state.selected.keys()]) {
      if (where.has(id)) state.selected.set(id, where.get(id));
      else state.selected.delete(id);
    }
    if (state.stack && !(state.stack in view.zones)) state.stack = null;
  }

  function selectionList() {
    return [...state.selected.entries()].map(([id, at]) => ({id, zone: at.zone, attached: at.attached}));
  }

  function renderSelection() {
    if (!CAN_ACT) return;
    const sel = selectionList();
    const parts = [];
    if (state.stack) parts.push(zoneLabel(state.stack));
    for (const s of sel) parts.push(cardName(s.id));
    if (state.replay !== null) {
      ui.selection.textContent = _("Replaying: actions are off until you go back to live.");
    } else {
      ui.selection.textContent = parts.length ? fmt(_("Selected: {things}"), {things: parts.join(", ")}) : _("Tap cards or a deck to act.");
    }
    ui.clearSelection.hidden = !parts.length;
    updateButtons();
  }

  // -- the action bar ----------------------------------------------------------------------
  const BUTTONS = [];

  function defineButtons() {
    if (!CAN_ACT) return;
    const add = (name, label, when, run, extra) => {
      const button = el("button", {type: "button", class: "act" + (extra ? " " + extra : ""), "data-action": name, text: label});
      button.hidden = true;
      // a form is built from the table as read after the latest action (a review: a tap while
      // it was read again offered the table before it, a hero just added missing)
      button.addEventListener("click", async () => {
        const tapped = button.dataset.seq;  // what it said when tapped ("Undo seq 43"), not after
        if (refreshing) await refreshing;
        run(tapped);
      });
      BUTTONS.push({name, button, when});
      ui.buttons.append(button);
    };
    const cards = () => selectionList().map((s) => s.id);
    const sel = () => selectionList();
    const notBox = (s) => s.length > 0 && s.every((c) => c.zone !== "box");
    // a hero moves, turns and tilts only cards she controls (RULES.md §3): those of her own
    // zones, not of a face-down deck; the master any card in play
    const heroes = () => heroesIn((state.live || state.shown).zones);
    const hers = (s) => notBox(s) && (MASTER || s.every((c) => ownerOf(c.zone, heroes()) === ACTOR
      && !c.zone.startsWith("deck:")));
    // a deck she may draw from or shuffle: one nobody owns, or hers
    const usableStack = () => MASTER || [null, ACTOR].includes(ownerOf(state.stack, heroes()));
    // exhausted and restored only on a table, in an extra zone or in the scenario (RULES.md §7)
    const tilts = (s) => s.every((c) => ["table", "extra", "scenario"].includes(c.zone.split(":")[0]));
    const faces = (s) => s.map((c) => faceOf(c.id));
    // she activates cards of her own zones and of the scenario, which nobody owns
    const usable = (c) => MASTER || c.zone === "scenario" || (ownerOf(c.zone, heroes()) === ACTOR
      && !c.zone.startsWith("deck:"));

    add("draw", _("Draw"), () => !!state.stack && usableStack(), () => {
      if (MASTER) openDrawPanel();
      else act({action: "draw", stack: state.stack, count: 1});
    }, "primary");
    // a hero shuffles a deck nobody owns only by an effect of hers (ruleset 17): she names it
    add("shuffle", _("Shuffle"), () => !!state.stack && usableStack() && stackSize(state.stack) > 1,
      () => (MASTER || ownerOf(state.stack, heroes()) === ACTOR ? act({action: "shuffle", stack: state.stack})
        : openHeroShufflePanel()));
    // the master picks the cards a search takes; a hero names them unseen (RULES.md §4)
    add("search", _("Search…"), () => !!state.stack && sel().every((c) => c.zone === state.stack)
      && (sel().length > 0 || (!MASTER && stackSize(state.stack) > 0
        && [null, ACTOR].includes(ownerOf(state.stack, heroes())))), () => openSearchPanel());  // not another's deck
    add("send", _("Send to…"), () => hers(sel()), () => openSendPanel());
    add("discard", _("Discard"), () => hers(sel()) && sel().some((c) => c.zone.split(":")[0] !== "discard"),
      () => askBeforeShowing(sel(), "discard", fmt(_("Discard {cards}"), {cards: cards().map(cardName).join(", ")}),
        {action: "discard", cards: cards()}, "discard"));
    add("bury", _("Bury"), () => hers(sel()), () => act({action: "bury", cards: cards()}));
    add("exile", _("Exile"), () => hers(sel()), () => askBeforeShowing(sel(), "exile",
      fmt(_("Exile {cards}"), {cards: cards().map(cardName).join(", ")}), {action: "exile", cards: cards()}, "limbo"));
    add("reveal", _("Reveal"), () => hers(sel()) && faces(sel()).some((f) => f !== "up"),
      () => askBeforeShowing(sel(), "reveal", fmt(_("Reveal {cards}"), {cards: cards().map(cardName).join(", ")}),
        {action: "reveal", cards: cards()}));
    add("show", _("Show to…"), () => hers(sel()) && faces(sel()).some((f) => f !== "up") && currentHeroes().some((h) => h !== ACTOR), () => openShowPanel());
    add("hide", _("Hide"), () => hers(sel()) && faces(sel()).some((f) => f !== "down"), () => act({action: "hide", cards: cards()}));
    add("exhaust", _("Exhaust"), () => hers(sel()) && tilts(sel()), () => act({action: "exhaust", cards: cards()}));
    add("restore", _("Restore"), () => hers(sel()) && tilts(sel()), () => act({action: "restore", cards: cards()}));
    add("attach", _("Attach to…"), () => sel().length === 1 && hers(sel()), () => openAttachPanel());
    add("detach", _("Detach"), () => sel().length === 1 && sel()[0].attached && hers(sel()),
      () => act({action: "detach", card: sel()[0].id}));
    add("activate", _("Activate…"), () => sel().length === 1 && notBox(sel()) && usable(sel()[0]), () => openActivatePanel());
    add("trade", _("Trade"), () => sel().some((c) => c.zone === "discard")
      && (MASTER || hers(sel().filter((c) => c.zone !== "discard")) || sel().every((c) => c.zone === "discard")), () => {
      const take = sel().filter((c) => c.zone === "discard").map((c) => c.id);
      const give = sel().filter((c) => c.zone !== "discard").map((c) => c.id);
      if (MASTER || companionsOf(ACTOR).length || unseenByOthers(sel().filter((c) => c.zone !== "discard")).length) {
        openTradePanel(take, give);
      } else act({action: "trade", hero: ACTOR, take, give});
    });
    if (MASTER) {
      add("add", _("Add from box…"), () => sel().length > 0 && sel().every((c) => c.zone === "box"), () => openAddPanel());
    }
    add("travel", MASTER ? _("Move a hero…") : _("Travel…"), () => places().length > 0 && (MASTER || places().length > 1
      || places()[0] !== whereIs(ACTOR)), () => openTravelPanel(), "quiet");
    // the action the page shows as the latest in force, named: one recorded since by someone
    // else is refused, not taken back in its place (ruleset 18: undo's "seq")
    // (a QA pass: two quick taps took back two actions, the second tap reading the Undo
    // named anew; now both name the one shown, and the second is refused)
    add("undo", _("Undo"), () => true, (tapped) => {
      if (tapped) act({action: "undo", seq: Number(tapped)});
      else say(_("nothing is in force to take back"), "error");  // not one recorded since the tap
    }, "quiet");
    add("redo", _("Redo"), () => true, () => act({action: "redo"}), "quiet");
    // the master's less frequent tasks, each its own form (a QA pass: only "Any action…", in JSON)
    if (MASTER) {
      add("hero-add", _("Add a hero…"), () => true, () => openHeroAddPanel(), "quiet");
      add("knowledge", _("Knowledge…"), () => heroes().length > 0, () => openKnowledgePanel(), "quiet");
      add("location-add", _("Add a location…"), () => true, () => openLocationPanel(), "quiet");
      add("battle-start", _("Start a battle"), () => !(state.live && state.live.battle), () => act({action: "battle start"}), "quiet");
      add("battle-end", _("End the battle"), () => !!(state.live && state.live.battle), () => act({action: "battle end"}), "quiet");
    }
    if (MASTER) add("any", _("Any action…"), () => true, () => openAnyPanel(), "quiet");
    ui.clearSelection.addEventListener("click", () => {
      closePanel();
      clearSelection();
    });
  }

  function updateButtons() {
    for (const {button, when} of BUTTONS) {
      let fits = false;
      try {
        fits = !!when();
      } catch {
        fits = false;
      }
      button.hidden = !fits;
    }
    setActionsEnabled();
  }

  function setActionsEnabled() {
    if (ui.actions) ui.actions.disabled = state.replay !== null;
  }

  // -- panels (forms for actions that need more than the selection) ---------------------------
  function closePanel() {
    if (!ui.panel) return;
    state.panel = null;
    ui.panel.hidden = true;
    ui.panel.replaceChildren();
  }

  function openPanel(name, title, fields, build) {
    state.panel = name;
    state.acted++;  // an earlier action's "done" is not said under this form
    say("");  // an earlier action's message is not this form's (a QA pass: a refusal sat under the next form)
    const form = el("form", {class: "panel-form", "data-panel": name});
    form.append(el("h3", {class: "panel-title", text: title}));
    for (const field of fields) form.append(field);
    form.append(el("div", {class: "panel-buttons"},
      el("button", {type: "submit", class: "primary", "data-confirm": name, text: _("Do it")}),
      el("button", {type: "button", class: "quiet", text: _("Cancel"), onclick: () => closePanel()})));
    form.addEventListener("submit", (event) => {
      event.preventDefault();
      let body;
      try {
        body = build(form);
      } catch (err) {
        say(err.message, "error");
        return;
      }
      if (body) act(body);
    });
    ui.panel.replaceChildren(form);
    ui.panel.hidden = false;
    const first = form.querySelector("select, input, textarea");
    if (first) first.focus({preventScroll: true});
  }

  function field(label, control) {
    return el("label", {class: "field"}, el("span", {class: "field-label", text: label}), control);
  }

  function select(name, options, value) {
    const node = el("select", {name});
    for (const opt of options) {
      const [val, text] = Array.isArray(opt) ? opt : [opt, opt];
      node.append(el("option", {value: val, text, selected: val === value}));
    }
    return node;
  }

  /** Every zone, in the page's order (the seat's own first). */
  function allZones() {
    return orderZones((state.live || state.shown).zones).groups.flatMap((g) => g.zones);
  }

  function destinationZones() {
    const zones = allZones().filter((z) => z !== "box");
    if (MASTER) return zones;
    const heroes = heroesIn((state.live || state.shown).zones);
    return zones.filter((z) => ownerOf(z, heroes) === ACTOR || z === "scenario");
  }

  function zoneOptions(zones) {
    return zones.map((z) => [z, zoneLabel(z)]);
  }

  const POSITIONS = [["top", pgettext("position", "top")], ["bottom", pgettext("position", "bottom")]];

  function positionField() {
    return field(_("Position"), select("position", [["", _("where the zone puts it")], ...POSITIONS], ""));
  }

  function valueOf(form, name) {
    const node = form.elements.namedItem(name);
    return node ? node.value.trim() : "";
  }

  function openSendPanel() {
    const cards = selectionList().map((s) => s.id);
    const hidden = unseenByOthers(selectionList());
    const to = select("to", zoneOptions(destinationZones()));
    const face = select("face", [["", _("as the zone decides")], ["up", _("face up")], ["down", _("face down")]], "");
    const note = hidden.length ? showingNote(hidden) : null;
    const fields = [field(_("Zone"), to), positionField(), field(_("Face"), face)];
    if (note) {  // said while the zone and face chosen would show them
      // a sheet card sent where no sheet card lies (a hand, the scenario) goes to the discard
      // pile instead (RULES.md §5), face up: the zones reply names where one may lie
      const sheets = hidden.filter((c) => ((state.live.cards || {})[c.id] || {}).sheet);
      const update = () => {
        const shown = shows(to.value, face.value) ? hidden
          : (state.live.sheet_zones || []).includes(to.value) ? [] : sheets;
        note.hidden = !shown.length;
        if (shown.length) note.textContent = showingNote(shown).textContent;
      };
      to.addEventListener("change", update);
      face.addEventListener("change", update);
      update();
      fields.push(note);
    }
    openPanel("send", fmt(_("Send {cards} to…"), {cards: cards.map(cardName).join(", ")}), fields, (form) => {
      const body = {action: "send", cards, to: valueOf(form, "to")};
      const position = valueOf(form, "position");
      const face = valueOf(form, "face");
      if (position) body.position = position;
      if (face) body.face = face;
      return body;
    });
  }

  function openDrawPanel() {
    const targets = allZones().filter((z) => z !== "box" && z !== state.stack);
    openPanel("draw", fmt(_("Draw from {zone}"), {zone: zoneLabel(state.stack)}), [
      field(_("Count"), el("input", {type: "number", name: "count", min: 1, value: 1, inputmode: "numeric"})),
      field(_("To"), chooseWhere(targets)),
    ], (form) => ({action: "draw", stack: state.stack, count: Number(valueOf(form, "count") || 1), to: valueOf(form, "to")}));
  }

  /** Where the master's drawn or found cards go: chosen every time (a default, the first
   * hero's hand, showed that hero a card dealt to another when the form was sent as it was). */
  function chooseWhere(targets) {
    const node = select("to", [["", _("choose where…")], ...zoneOptions(targets)], "");
    node.required = true;
    return node;
  }

  function openSearchPanel() {
    const take = selectionList().map((s) => s.id);
    if (!MASTER) {
      openHeroSearchPanel(take);
      return;
    }
    const targets = MASTER ? allZones().filter((z) => z !== "box" && z !== state.stack) : destinationZones();
    openPanel("search", fmt(_("Search {zone} for {cards}"), {zone: zoneLabel(state.stack), cards: take.map(cardName).join(", ")}), [
      field(_("To"), MASTER ? chooseWhere(targets) : select("to", [["", _("the actor's inventory")], ...zoneOptions(targets)], "")),
      field(_("By (the card whose effect allows it)"), el("input", {type: "text", name: "by", placeholder: _("card id, optional")})),
    ], (form) => {
      const body = {action: "search", stack: state.stack, take};
      if (valueOf(form, "to")) body.to = valueOf(form, "to");
      if (valueOf(form, "by")) body.by = valueOf(form, "by");
      return body;
    });
  }

  /** A hero's search: she names the cards she looks for without seeing the deck (a card it
   * does not hold is recorded as missed, and a face-down deck is shuffled again either way),
   * by the effect of an active card of hers. */
  function openHeroSearchPanel(chosen) {
    const by = allowingCards();
    if (!by.length) {
      say(_("a hero searches by the effect of an active card of theirs, and none of yours in play is active with an effect"), "error");
      return;
    }
    // the catalog's cards, the deck's suit first (a campaign deck holds one suit), as choices to
    // type: asked for when the form opens (the page itself names no card its seat may not see)
    const list = el("datalist", {id: "catalog-cards"});
    const suit = state.stack.split(":")[1];
    getJSON("catalog").then(learnCatalog).then((listed) => {
      const known = Object.entries(listed.cards || {})
        .sort(([a, x], [b, y]) => (y.suit === suit) - (x.suit === suit) || a.localeCompare(b));
      list.replaceChildren(...known.map(([id, card]) => el("option", {value: id, label: card.name})));
    }).catch(() => {});  // the form works without it: ids typed
    const places = destinationZones().filter((z) => /^(table|extra):/.test(z));  // her table, her extra zone
    openPanel("search", fmt(_("Search {zone}"), {zone: zoneLabel(state.stack)}), [
      field(_("Cards to look for (ids, separated by spaces)"), el("input", {
        type: "text", name: "take", value: chosen.join(" "), placeholder: _("e.g. item-rope"), list: "catalog-cards",
        autocomplete: "off", autocapitalize: "none", spellcheck: "false"})),
      list,
      field(_("To"), select("to", [["", zoneLabel("inventory:" + ACTOR)], ...zoneOptions(places)], "")),
      field(_("By (your active card whose effect allows it)"), select("by", by)),
    ], (form) => {
      const body = {action: "search", stack: state.stack, take: words(valueOf(form, "take").replace(/,/g, " ")),
                    by: valueOf(form, "by")};
      if (valueOf(form, "to")) body.to = valueOf(form, "to");
      return body;
    });
  }

  /** A hero's shuffle of a deck nobody owns: by the effect of an active card of hers. */
  function openHeroShufflePanel() {
    const by = allowingCards();
    if (!by.length) {
      say(_("a hero shuffles a deck nobody owns by the effect of an active card of theirs, and none of yours in play "
            + "is active with an effect"), "error");
      return;
    }
    openPanel("shuffle", fmt(_("Shuffle {zone}"), {zone: zoneLabel(state.stack)}),
      [field(_("By (your active card whose effect allows it)"), select("by", by))],
      (form) => ({action: "shuffle", stack: state.stack, by: valueOf(form, "by")}));
  }

  /** This hero's face-up cards (a revealed one in her inventory too: RULES.md §7), attached
   * ones too, that are active and have an effect (``allows``, from the server): the cards she
   * may name as the one whose effect allows a search, a shuffle or an activation. */
  function allowingCards() {
    const view = state.live || state.shown;
    const heroes = heroesIn(view.zones);
    const cards = view.cards || {};
    const allows = (id) => !cards[id] || !("allows" in cards[id]) || cards[id].allows;  // active, with an effect
    const out = [];
    for (const [zone, entries] of Object.entries(view.zones)) {
      if (ownerOf(zone, heroes) !== ACTOR || zone.startsWith("deck:")) continue;
      for (const entry of entries) {
        if (!entry.id || entry.face === "down") continue;  // a face-down host's attachments are inactive too (§7)
        if (allows(entry.id)) out.push([entry.id, cardName(entry.id) + " — " + zoneLabel(zone)]);
        for (const att of entry.attached || []) {
          if (att && cards[att] && allows(att)) {
            out.push([att, fmt(_("{card} (attached to {host})"), {card: cardName(att), host: cardName(entry.id)})
                           + " — " + zoneLabel(zone)]);
          }
        }
      }
    }
    return out;
  }

  /** How a card lies in the latest view ("up", "down"; an attached card's from the reply's
   * ``cards``), or null for one not found. */
  function faceOf(id) {
    const view = state.live || state.shown || {};
    for (const entries of Object.values(view.zones || {})) {
      for (const entry of entries) if (entry.id === id) return entry.face || null;
    }
    return ((view.cards || {})[id] || {}).face || null;  // an attached card
  }

  function stackSize(zone) {
    return (((state.live || state.shown || {}).zones || {})[zone] || []).length;
  }

  function places() {
    return Object.keys(((state.live || state.shown || {}).locations) || {});
  }

  function whereIs(hero) {
    const facts = ((state.live || state.shown || {}).heroes || {})[hero];
    return (facts && facts.location) || null;
  }

  // travel: where a hero stands decides what they may trade (RULES.md §8)
  function openTravelPanel() {
    const fields = [];
    const heroes = currentHeroes();
    const firstElsewhere = (hero) => places().find((p) => p !== whereIs(hero)) || places()[0];
    const location = select("location", places(), firstElsewhere(MASTER ? heroes[0] : ACTOR));
    if (MASTER) {
      const hero = select("hero", heroes.map((h) => [h, whereIs(h) ? fmt(_("{hero} (at {place})"), {hero: heroName(h), place: whereIs(h)}) : heroName(h)]));
      hero.addEventListener("change", () => { location.value = firstElsewhere(hero.value); });
      fields.push(field(_("Hero"), hero));
    }
    fields.push(field(_("Location"), location));
    const here = whereIs(ACTOR);
    const title = MASTER ? _("Move a hero to a location") : here ? fmt(_("Travel from {place} to…"), {place: here}) : _("Travel to…");
    openPanel("travel", title, fields,
      (form) => ({action: "travel", hero: MASTER ? valueOf(form, "hero") : ACTOR, location: valueOf(form, "location")}));
  }

  function hostOptions(except) {
    const out = [];
    const heroes = heroesIn(state.live.zones);
    for (const [zone, entries] of Object.entries(state.live.zones)) {
      if (zone === "box" || zone.startsWith("deck:")) continue;
      if (!MASTER && zone !== "scenario" && ownerOf(zone, heroes) !== ACTOR) continue; // a hero's hosts: their own cards
      for (const entry of entries) {
        if (entry.id && entry.id !== except) out.push([entry.id, cardName(entry.id) + " — " + zoneLabel(zone)]);
      }
    }
    return out;
  }

  function openAttachPanel() {
    const card = selectionList()[0].id;
    const hosts = hostOptions(card);
    if (!hosts.length) {
      say(fmt(_("no card to attach {card} to"), {card: cardName(card)}), "error");
      return;
    }
    openPanel("attach", fmt(_("Attach {card} to…"), {card: cardName(card)}),
      withShowingNote([field(_("Host"), select("to", hosts))], selectionList()),  // attached, it lies face up
      (form) => ({action: "attach", card, to: valueOf(form, "to")}));
  }

  // reveal --to: face-down cards shown to one hero only (RULES.md §9)
  function openShowPanel() {
    const cards = selectionList().map((s) => s.id);
    const heroes = currentHeroes().filter((h) => h !== ACTOR);
    const fields = withShowingNote([field(_("Hero"), select("to", heroOptions(heroes)))], selectionList(),
      _("That hero will know {cards}, so only the master can take this back."));
    openPanel("show", fmt(_("Show {cards} to one hero only"), {cards: cards.map(cardName).join(", ")}), fields,
      (form) => ({action: "reveal", cards, to: [valueOf(form, "to")]}));
  }

  function openActivatePanel() {
    const card = selectionList()[0].id;
    const fields = [
      field(_("Effect (number, optional)"), el("input", {type: "number", name: "effect", min: 1, inputmode: "numeric"})),
      field(_("Target (optional)"), el("input", {type: "text", name: "target", maxlength: 500})),
      // the costs paid (RULES.md §6: recorded, not enforced), as the CLI's --ap and --energy
      field(_("Action points paid (optional)"), el("input", {type: "number", name: "ap", min: 0, max: 100, inputmode: "numeric"})),
      field(_("Energies paid (optional: kind=amount, …)"), el("input", {type: "text", name: "energy", placeholder: "fire=2, water=1"})),
      field(_("Note (optional)"), el("input", {type: "text", name: "note", maxlength: 2000})),
    ];
    if (MASTER) fields.unshift(field(_("Hero (who activates)"), select("hero", [["", "—"], ...heroOptions(heroesIn(state.live.zones))], "")));
    // a card of the scenario, which she does not control: by the effect of one of hers (ruleset 17)
    const uncontrolled = !MASTER && selectionList()[0].zone === "scenario";
    if (uncontrolled) fields.unshift(field(_("By (your active card whose effect allows it)"), select("by", allowingCards())));
    openPanel("activate", fmt(_("Activate {card}"), {card: cardName(card)}), withShowingNote(fields, selectionList()), (form) => {
      const body = {action: "activate", card};
      if (valueOf(form, "effect")) body.effect = Number(valueOf(form, "effect"));
      if (valueOf(form, "target")) body.target = valueOf(form, "target");
      if (valueOf(form, "ap")) body.ap = Number(valueOf(form, "ap"));
      if (valueOf(form, "energy").trim()) body.energy = energiesOf(valueOf(form, "energy"));
      if (valueOf(form, "note")) body.note = valueOf(form, "note");
      if (MASTER && valueOf(form, "hero")) body.hero = valueOf(form, "hero");
      if (uncontrolled && valueOf(form, "by")) body.by = valueOf(form, "by");
      return body;
    });
  }

  // "fire=2, water=1" as the API's {"fire": 2, "water": 1}; the server checks the kinds and amounts
  function energiesOf(text) {
    return numbersByName(text, _("{part}: write each energy paid as kind=amount, e.g. fire=2"));
  }

  /** "a=2, b=1" as {a: 2, b: 1}; a part not written so is refused with ``refusal`` ({part}). */
  function numbersByName(text, refusal) {
    const found = {};
    for (const part of text.split(",")) {
      if (!part.trim()) continue;
      const [name, number, ...rest] = part.split("=");
      if (rest.length || !name.trim() || !/^\s*\d+\s*$/.test(number || "")) {
        throw new Error(fmt(refusal, {part: part.trim()}));
      }
      found[name.trim()] = Number(number);
    }
    return found;
  }

  /** The companions on a hero's table (every hero's, for the master: null), face-up: the
   * cards a taken card may be attached to (seed 000: "anexos do COMPANHEIRO"). */
  function companionsOf(hero) {
    const view = state.live || state.shown;
    const out = [];
    for (const [zone, entries] of Object.entries(view.zones)) {
      if (!zone.startsWith("table:") || (hero !== null && zone !== "table:" + hero)) continue;
      for (const entry of entries) {
        const info = entry.id && (view.cards || {})[entry.id];
        if (info && info.suit === "companion" && entry.face !== "down") {
          out.push([entry.id, cardName(entry.id) + " — " + zoneLabel(zone)]);
        }
      }
    }
    return out;
  }

  function openTradePanel(take, give) {
    const heroes = heroesIn(state.live.zones);
    const names = {take: take.map(cardName).join(", "), give: give.map(cardName).join(", ")};
    const fields = MASTER ? [field(_("For hero"), select("hero", heroOptions(heroes)))] : [];
    const shown = unseenByOthers(selectionList().filter((c) => give.includes(c.id)));
    if (shown.length) fields.push(showingNote(shown));
    // each card taken goes to the inventory, or attached to a companion (trade --attach)
    const companions = companionsOf(MASTER ? null : ACTOR);
    if (companions.length) {
      take.forEach((card, i) => fields.push(field(fmt(_("{card} goes to"), {card: cardName(card)}),
        select("attach-" + i, [["", _("the inventory")], ...companions.map(([id, label]) => [id, fmt(_("attached to {card}"), {card: label})])], ""))));
    }
    openPanel("trade", fmt(give.length ? _("Trade: take {take}, give {give}") : _("Trade: take {take}"), names), fields,
      (form) => {
        const body = {action: "trade", hero: MASTER ? valueOf(form, "hero") : ACTOR, take, give};
        const attach = {};
        take.forEach((card, i) => { if (valueOf(form, "attach-" + i)) attach[card] = valueOf(form, "attach-" + i); });
        if (Object.keys(attach).length) body.attach = attach;
        return body;
      });
  }

  /** The cards of a hero's selection that only she can see now: any not lying face up (in her
   * hand, or shown to her alone). None for the master, who may take back any action. */
  function unseenByOthers(selection) {
    return MASTER ? [] : selection.filter((c) => faceOf(c.id) !== "up");
  }

  /** ``fields``, and the showing note (``words``) if the action shows any of ``selection``'s
   * cards that only she sees (an attach turns its card face up; an activation names it). */
  function withShowingNote(fields, selection, words) {
    const hidden = unseenByOthers(selection);
    return hidden.length ? [...fields, showingNote(hidden, words)] : fields;
  }

  function showingNote(cards, words = _("Everyone will see {cards}, so only the master can take this back.")) {
    return el("p", {class: "panel-note", text: fmt(words, {cards: cards.map((c) => cardName(c.id)).join(", ")})});
  }

  /** Whether a card sent to ``zone`` (turned ``face``, or as the zone decides) lies face up
   * there, for the table to see. */
  function shows(zone, face) {
    return (face || (state.live.zone_faces || {})[zone]) !== "down";  // a reveal (no zone), or a zone unknown: it shows
  }

  /** A hero's action that shows the table a card only she could see (sending it to ``to``)
   * is one she cannot take back (undo refuses it: fair play), so the page asks first; any
   * other acts at once (a QA pass: one tap discarded a hidden card from her hand, for good). */
  function askBeforeShowing(selection, name, title, body, to) {
    const shown = shows(to) ? unseenByOthers(selection) : [];
    if (!shown.length) {
      act(body);
      return;
    }
    openPanel(name, title, [showingNote(shown)], () => body);
  }

  function openHeroAddPanel() {
    openPanel("hero-add", _("Add a hero"), [
      field(_("Id (lowercase letters, digits, -)"), el("input", {type: "text", name: "hero", required: true, maxlength: 64,
        autocomplete: "off", autocapitalize: "none", spellcheck: "false", placeholder: "ana"})),
      field(_("Name (optional)"), el("input", {type: "text", name: "name", maxlength: 200})),
      field(_("Knowledge"), el("input", {type: "number", name: "knowledge", min: 0, max: 100, value: 0, inputmode: "numeric"})),
    ], (form) => {
      const body = {action: "hero add", hero: valueOf(form, "hero").trim(), knowledge: Number(valueOf(form, "knowledge") || 0)};
      if (valueOf(form, "name").trim()) body.name = valueOf(form, "name").trim();
      return body;
    });
  }

  function openKnowledgePanel() {
    const heroes = heroesIn(state.live.zones);
    const known = (state.live.heroes || {});
    const chooser = select("hero", heroOptions(heroes));
    const level = el("input", {type: "number", name: "knowledge", min: 0, max: 100, inputmode: "numeric", required: true,
      value: (known[heroes[0]] || {}).knowledge || 0});
    chooser.addEventListener("change", () => { level.value = (known[chooser.value] || {}).knowledge || 0; });
    openPanel("knowledge", _("Set a hero's knowledge"), [field(_("Hero"), chooser), field(_("Knowledge"), level)],
      (form) => ({action: "hero knowledge", hero: valueOf(form, "hero"), knowledge: Number(valueOf(form, "knowledge"))}));
  }

  function openLocationPanel() {
    openPanel("location-add", _("Add a location"), [
      field(_("Location"), el("input", {type: "text", name: "location", required: true, maxlength: 64,
        autocomplete: "off", autocapitalize: "none", spellcheck: "false", placeholder: "village"})),
      field(_("Discard pile access by suit (suit=level, …; the others 0)"), el("input", {type: "text", name: "access",
        placeholder: "item=2, skill=1"})),
    ], (form) => ({action: "location add", location: valueOf(form, "location").trim(), access: levelsOf(valueOf(form, "access"))}));
  }

  /** "item=2, skill=1" as {item: 2, skill: 1}: a location's access levels as the master types them. */
  function levelsOf(text) {
    return numbersByName(text, _("{part}: write each suit's level as suit=level, e.g. item=2"));
  }

  function openAddPanel() {
    const cards = selectionList().map((s) => s.id);
    openPanel("add", fmt(_("Add {cards} from the box to…"), {cards: cards.map(cardName).join(", ")}), [
      field(_("Zone"), select("to", zoneOptions(allZones().filter((z) => z !== "box")))),
      field(_("Position"), select("position", POSITIONS, "top")),
    ], (form) => ({action: "add", cards, to: valueOf(form, "to"), position: valueOf(form, "position")}));
  }

  function openAnyPanel() {
    const names = Object.keys(ANY_ACTIONS);
    // nothing chosen at first: "Do it" on a chosen default (it was battle start) recorded it (a QA pass)
    const chooser = select("action", [["", "—"], ...names.map((n) => [n, n])], "");
    const params = el("textarea", {name: "params", rows: 4, spellcheck: "false", class: "json"});
    const template = (name) => {
      const t = JSON.parse(JSON.stringify(ANY_ACTIONS[name] || {}));
      const cards = selectionList().map((s) => s.id);
      if ("cards" in t && cards.length) t.cards = cards;
      if ("take" in t && cards.length) t.take = cards;
      if ("card" in t && cards.length) t.card = cards[0];
      if ("stack" in t && state.stack) t.stack = state.stack;
      return JSON.stringify(t);
    };
    params.value = template(chooser.value);
    chooser.addEventListener("change", () => { params.value = template(chooser.value); });
    openPanel("any", _("Any action (the API's parameters, as JSON)"), [field(_("Action"), chooser), field(_("Parameters"), params)],
      (form) => {
        let extra = {};
        const text = valueOf(form, "params");
        if (text) {
          try {
            extra = JSON.parse(text);
          } catch (err) {
            // the browser's reason is in English whatever the page's language
            throw new Error(LANG.startsWith("en") ? fmt(_("the parameters are not valid JSON: {reason}"), {reason: err.message})
              : _("the parameters are not valid JSON: look at the quotes, commas and braces"));
          }
        }
        if (!valueOf(form, "action")) throw new Error(_("choose the action first"));
        if (!extra || typeof extra !== "object" || Array.isArray(extra)) throw new Error(_("the parameters must be a JSON object"));
        return Object.assign({}, extra, {action: valueOf(form, "action")});
      });
  }

  // -- history -------------------------------------------------------------------------------
  ui.historyMore.addEventListener("click", () => {
    state.historyLimit += HISTORY_PAGE;
    refresh();
  });

  function renderHistory() {
    nameTheUnnamed(state.history);
    const frag = document.createDocumentFragment();
    for (const entry of state.history) frag.append(historyEntry(entry));
    ui.history.replaceChildren(frag);
    nameUndo();
  }

  /** The latest action in force as the live zones reply names it (``in_force``), with its
   * history entry when the page holds it, or null when none is in force (a review: read from
   * the history alone, an undo of more actions than the page holds fell back to an undo of
   * whatever came last). */
  function latestInForce() {
    const seq = state.live && state.live.in_force;
    if (!seq) return null;
    return state.history.find((entry) => entry.seq === seq) || {seq, summary: ""};
  }

  /** The Undo button says which action it takes back (a QA pass: the master's tap took back
   * a hero's draw recorded a moment before it, and nothing said so until it was done). */
  function nameUndo() {
    const undo = BUTTONS.find((b) => b.name === "undo");
    if (!undo) return;
    const meant = latestInForce();
    undo.button.textContent = meant ? fmt(_("Undo seq {seq}"), {seq: meant.seq}) : _("Undo");
    undo.button.dataset.seq = meant ? String(meant.seq) : "";
    undo.button.title = meant && meant.summary ? fmt(_("Take back seq {seq}: {summary}"), {seq: meant.seq, summary: meant.summary}) : "";
  }

  function historyEntry(entry) {
    const open = state.explained.has(entry.seq);
    const classes = ["entry"];
    if (entry.undone_by) classes.push("undone");
    if (state.replay !== null && entry.seq > state.replay) classes.push("future");
    if (state.replay !== null && entry.seq === state.replay) classes.push("current");
    const li = el("li", {class: classes.join(" "), "data-seq": entry.seq});
    const when = entry.time ? new Date(entry.time) : null;
    const head = el("button", {type: "button", class: "entry-head", "aria-expanded": open ? "true" : "false"},
      el("span", {class: "entry-seq", text: String(entry.seq)}),
      el("span", {class: "entry-body"},
        el("span", {class: "entry-meta"},
          el("span", {class: "entry-actor", text: entry.actor}),
          el("span", {class: "entry-action", text: ACTION_NAMES[entry.action] || entry.action}),
          when && !isNaN(when) ? el("time", {datetime: entry.time, text: when.toLocaleTimeString(LANG, {hour: "2-digit", minute: "2-digit"})}) : null,
          entry.undone_by ? el("span", {class: "entry-undone", text: fmt(_("undone by {seq}"), {seq: entry.undone_by})}) : null),
        el("span", {class: "entry-summary", text: named(entry.summary, entry.cards), title: entry.summary})));
    head.addEventListener("click", () => toggleExplain(entry.seq));
    li.append(head);
    if (open) li.append(explainBlock(entry.seq));
    return li;
  }

  async function toggleExplain(seq) {
    if (state.explained.has(seq)) {
      state.explained.delete(seq);
      renderHistory();
      return;
    }
    state.explained.add(seq);
    renderHistory();
    if (!state.explanations.has(seq)) {
      try {
        state.explanations.set(seq, await getJSON("explain/" + seq));
      } catch (err) {
        state.explanations.set(seq, {error: err.message});
      }
      renderHistory();
    }
  }

  function explainBlock(seq) {
    const data = state.explanations.get(seq);
    const box = el("div", {class: "explain", "data-explain": seq});
    if (!data) {
      box.append(el("p", {class: "muted", text: "…"}));
      return box;
    }
    if (data.error) {
      box.append(el("p", {class: "error-text", text: data.error}));
      return box;
    }
    if (data.older_rules) box.append(el("p", {class: "muted", text: data.older_rules}));
    const checks = data.checks || [];
    const cards = (state.history.find((entry) => entry.seq === seq) || {}).cards;
    if (checks.length) {
      const list = el("dl", {class: "checks"});
      for (const check of checks) {
        // the rule's label in the page's language; its stable English name when the reply has none
        // named as its history line is (the cards that action touched), as recorded on hover
        list.append(el("dt", {text: check.label || check.rule}), el("dd", {text: named(check.detail, cards), title: check.detail}));
      }
      box.append(list);
    } else {
      box.append(el("p", {class: "muted", text: _("no rule checks recorded for this action")}));
    }
    const buttons = el("div", {class: "explain-buttons"},
      el("button", {type: "button", class: "small", text: fmt(_("Show the table at seq {seq}"), {seq}), onclick: () => replayTo(seq)}));
    // a hero takes back only her own actions: not offered when another's came after
    const othersAfter = state.history.some((h) => h.seq > seq && h.actor !== ACTOR);
    if (CAN_ACT && seq < state.seq && state.replay === null && (MASTER || !othersAfter)) {
      buttons.append(el("button", {type: "button", class: "small", "data-action": "undo-to", text: fmt(_("Undo everything after seq {seq}"), {seq}),
        onclick: () => act({action: "undo", to: seq})}));
    }
    box.append(buttons);
    return box;
  }

  // -- keyboard ------------------------------------------------------------------------------
  document.addEventListener("keydown", (event) => {
    if (event.key !== "Escape") return;
    if (state.panel) closePanel();
    else if (state.replay !== null) backToLive();
    else if (state.selected.size || state.stack) clearSelection();
  });

  document.addEventListener("visibilitychange", () => {
    if (!document.hidden) refresh(); // a phone that slept may have missed the stream
  });

  // -- start ----------------------------------------------------------------------------------
  root.dataset.ready = "loading";
  defineButtons();
  refresh().then(() => {
    root.dataset.ready = "yes";
    updateButtons();
  });
  connect();
})();

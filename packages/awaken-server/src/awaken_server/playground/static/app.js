// The playground UI: agents, threads, a streamed chat with tool cards, HITL approvals,
// run timelines and cancel. Plain DOM; every element is created with textContent (no HTML
// injection from model output).
import { api, ApiError, loadKey, saveKey } from "./api.js";

const $ = (id) => document.getElementById(id);
const ui = {
  status: $("status"), agent: $("agent"), threads: $("threads"), title: $("thread-title"),
  runs: $("runs"), transcript: $("transcript"), approvals: $("approvals"), composer: $("composer"),
  message: $("message"), send: $("send"), cancel: $("cancel-run"), timeline: $("timeline"),
  timelineRows: $("timeline-rows"), timelineNote: $("timeline-note"), timelineHeading: $("timeline-heading"),
};

const state = {
  threadId: null,
  activeRunId: null,
  events: new Map(),   // runId -> [{seq, at, event}] seen by this tab
  lastSeq: new Map(),  // runId -> last seq received
  bubble: null,        // the assistant message being streamed
  tools: new Map(),    // tool call id -> card
  decided: new Set(),  // tool call ids this tab sent a decision for
};

function el(tag, props = {}, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(props)) {
    if (k === "class") node.className = v;
    else if (k === "text") node.textContent = v;
    else if (k.startsWith("on")) node.addEventListener(k.slice(2), v);
    else node.setAttribute(k, v);
  }
  for (const child of children) node.append(child);
  return node;
}

const json = (value) => (typeof value === "string" ? value : JSON.stringify(value, null, 2));

function setStatus(text, isError = false) {
  ui.status.textContent = text;
  ui.status.classList.toggle("error", isError);
}

function report(error) {
  if (error instanceof ApiError && error.status === 401) {
    setStatus(`The server needs an API key: ${error.message}`, true);
    $("api-key").focus();
  } else {
    setStatus(error.message || String(error), true);
  }
}

function scrollDown() {
  ui.transcript.scrollTop = ui.transcript.scrollHeight;
}

// ---- transcript -------------------------------------------------------------------------

function addMessage(role, text) {
  const body = el("span", { class: "text", text });
  const node = el("div", { class: `msg ${role}`, "data-role": role }, el("span", { class: "who", text: role }), body);
  ui.transcript.append(node);
  scrollDown();
  return node;
}

function assistantBubble() {
  if (!state.bubble) state.bubble = addMessage("assistant", "");
  return state.bubble;
}

function appendText(text) {
  assistantBubble().querySelector(".text").textContent += text;
  scrollDown();
}

function appendReasoning(text) {
  const bubble = assistantBubble();
  let box = bubble.querySelector(".reasoning");
  if (!box) {
    box = el("details", { class: "reasoning", open: "" }, el("summary", { text: "Reasoning" }), el("span", { class: "body" }));
    bubble.insertBefore(box, bubble.querySelector(".text"));
  }
  box.querySelector(".body").textContent += text;
}

function toolCard(id, name) {
  let card = state.tools.get(id);
  if (card) return card;
  card = el("div", { class: "tool running", "data-tool-call-id": id, "data-tool-name": name || "" },
    el("strong", { class: "name", text: `Tool ${name || ""}` }),
    el("span", { class: "outcome notice", text: " running…" }),
    el("div", { class: "args-label notice", text: "Arguments" }),
    el("pre", { class: "args" }),
    el("div", { class: "progress notice" }),
    el("pre", { class: "result", hidden: "" }));
  state.tools.set(id, card);
  state.bubble = null; // text after a tool call starts a new bubble
  ui.transcript.append(card);
  scrollDown();
  return card;
}

function showActivity(card, event) {
  const box = card.querySelector(".progress");
  const content = event.content;
  if (event.activity_type === "tool-call-progress" && content && typeof content === "object") {
    const label = [content.status, content.message].filter(Boolean).join(": ");
    let bar = box.querySelector("progress");
    if (!bar) {
      bar = el("progress", { max: "1", "aria-label": `Progress of ${card.dataset.toolName}` });
      box.replaceChildren(bar, el("span", { class: "progress-text" }));
    }
    if (typeof content.progress === "number") bar.value = content.progress;
    else bar.removeAttribute("value"); // indeterminate
    box.querySelector(".progress-text").textContent = ` ${label}`;
    return;
  }
  box.textContent = `${event.activity_type}: ${json(content ?? event.patch)}`;
}

function toolResult(card, outcome, result) {
  card.classList.remove("running");
  card.classList.add(outcome === "succeeded" ? "done" : outcome === "suspended" ? "suspended" : "failed");
  card.querySelector(".outcome").textContent = ` ${outcome}`;
  const pre = card.querySelector(".result");
  pre.hidden = false;
  pre.textContent = json(result);
}

function notice(text, isError = false) {
  ui.transcript.append(el("p", { class: isError ? "notice error" : "notice", text }));
  state.bubble = null;
  scrollDown();
}

// ---- approvals ----------------------------------------------------------------------------

function showApproval({ runId, toolCallId, name, args, message }) {
  // A run list or event replay fetched before our decision landed still shows the call as
  // waiting: never bring back a box the user already answered.
  if (state.decided.has(toolCallId)) return;
  if (ui.approvals.querySelector(`[data-tool-call-id="${CSS.escape(toolCallId)}"]`)) return;
  const box = el("div", { class: "approval", role: "group", "aria-label": `Approve ${name}`, "data-tool-call-id": toolCallId },
    el("strong", { text: `${name} is waiting for your decision` }),
    el("p", { text: message || "" }),
    el("div", { class: "notice", text: "Arguments" }),
    el("pre", { class: "approval-args", text: json(args) }));
  const decide = async (approved) => {
    for (const b of box.querySelectorAll("button")) b.disabled = true;
    state.decided.add(toolCallId);
    try {
      await api.decide(runId, toolCallId, approved);
      box.remove();
      setStatus(approved ? `Approved ${name}; the run continues.` : `Denied ${name}.`);
      await follow(runId);
    } catch (error) {
      state.decided.delete(toolCallId);
      for (const b of box.querySelectorAll("button")) b.disabled = false;
      report(error);
    }
  };
  box.append(el("div", { class: "row" },
    el("button", { type: "button", class: "primary approve", text: "Approve", onclick: () => decide(true) }),
    el("button", { type: "button", class: "deny", text: "Deny", onclick: () => decide(false) })));
  ui.approvals.append(box);
  box.querySelector("button.approve").focus();
}

// ---- events -----------------------------------------------------------------------------

function record(runId, event, seq) {
  if (!state.events.has(runId)) state.events.set(runId, []);
  state.events.get(runId).push({ seq, at: Date.now(), event });
  if (seq !== null && seq !== undefined) state.lastSeq.set(runId, seq);
}

function handle(runId, event) {
  switch (event.event_type) {
    case "text_delta": appendText(event.delta); break;
    case "reasoning_delta": appendReasoning(event.delta); break;
    case "tool_call_start": toolCard(event.id, event.name); break;
    case "tool_call_delta": toolCard(event.id).querySelector(".args").textContent += event.args_delta; break;
    case "tool_call_ready": toolCard(event.id, event.name).querySelector(".args").textContent = json(event.arguments); break;
    case "tool_call_stream_delta": toolCard(event.id, event.name).querySelector(".progress").textContent += event.delta; break;
    case "activity_snapshot": case "activity_delta": {
      const card = state.tools.get(event.message_id);
      if (card) showActivity(card, event);
      break;
    }
    case "tool_call_done": {
      const card = toolCard(event.id);
      toolResult(card, event.outcome, event.result.data ?? event.result.message ?? event.result);
      const pending = event.result.suspension;
      if (event.outcome === "suspended" && pending) {
        showApproval({ runId, toolCallId: event.id, name: pending.pending?.name || card.dataset.toolName,
          args: pending.pending?.arguments ?? pending.suspension?.parameters, message: pending.suspension?.message });
      }
      break;
    }
    case "tool_call_resumed": {
      const card = state.tools.get(event.target_id);
      if (card) card.querySelector(".outcome").textContent = " resumed";
      break;
    }
    case "run_start": if (state.threadId) loadRuns(state.threadId).catch(() => {}); break;
    case "error": notice(`Error: ${event.message}`, true); break;
    case "run_finish": {
      const kind = event.termination?.type || "finished";
      notice(`Run ${kind === "suspended" ? "suspended, waiting for a decision" : `finished: ${kind}`}`);
      ui.transcript.lastChild.dataset.termination = kind;
      break;
    }
    default: break;
  }
}

function onEventFor(fixedRunId) {
  return (event, seq, started) => {
    const runId = fixedRunId || started?.runId;
    if (event === null) {
      if (started?.threadId && state.threadId !== started.threadId) selectThread(started.threadId, false);
      runActive(runId);
      return;
    }
    record(runId, event, seq);
    handle(runId, event);
  };
}

function runActive(runId) {
  state.activeRunId = runId;
  ui.cancel.disabled = !runId;
  ui.send.disabled = Boolean(runId);
  if (runId) setStatus(`Run ${runId} is running…`);
}

async function finished(runId) {
  runActive(null);
  const waiting = ui.approvals.querySelector("button.approve");
  setStatus(waiting ? `Run ${runId} is waiting for your decision.` : `Run ${runId} ended.`);
  (waiting || ui.message).focus();
  await Promise.all([loadThreads(), state.threadId ? loadRuns(state.threadId) : null]);
}

/** Follow a run's events after the last one seen (a resumed run keeps counting). */
async function follow(runId) {
  state.bubble = null;
  runActive(runId);
  try {
    for (let attempt = 0; attempt < 40; attempt += 1) {
      const done = await api.runEvents(runId, state.lastSeq.get(runId) ?? null, onEventFor(runId));
      if (done !== null) break;
      await new Promise((r) => setTimeout(r, 250)); // the resumed run has not published yet
    }
  } catch (error) {
    report(error);
  }
  await finished(runId);
}

async function send(text) {
  addMessage("user", text);
  state.bubble = null;
  ui.message.value = "";
  let runId = null;
  try {
    const started = await api.startRun(ui.agent.value.trim(), state.threadId, text, (event, seq, head) => {
      runId = head?.runId;
      onEventFor(null)(event, seq, head);
    });
    runId = started?.runId || runId;
  } catch (error) {
    report(error);
  }
  await finished(runId);
}

// ---- threads & history -------------------------------------------------------------------

/** The agents the server lists; [] when it lists none (config API off): the id is typed. */
async function loadAgents() {
  let agents = [];
  try {
    agents = await api.agents();
  } catch (error) {
    if (error instanceof ApiError && error.status === 401) throw error;
  }
  $("agent-options").replaceChildren(...agents.map((id) => el("option", { value: id, text: id })));
  if (!ui.agent.value && agents.length) ui.agent.value = agents[0];
  return agents;
}

async function loadThreads() {
  const items = await api.threads();
  ui.threads.replaceChildren(...items.map((t) => {
    const label = t.title || t.id;
    const when = t.updated_at ? new Date(t.updated_at).toLocaleString() : "";
    const button = el("button", { type: "button", "data-thread-id": t.id, title: `${t.id} ${when}`, text: label,
      onclick: () => selectThread(t.id, true) });
    if (t.id === state.threadId) button.setAttribute("aria-current", "true");
    return el("li", {}, button);
  }));
}

async function loadRuns(threadId) {
  const runs = await api.runsOf(threadId);
  ui.runs.replaceChildren(...runs.map((run) => el("button", {
    type: "button", class: "run-timeline", "data-run-id": run.run_id,
    text: `Timeline · ${run.status} · ${run.run_id.slice(-6)}`, "aria-label": `Timeline of run ${run.run_id} (${run.status})`,
    onclick: () => openTimeline(run.run_id),
  })));
  for (const run of runs) {
    if (run.status === "waiting" && run.waiting?.tickets) {
      for (const t of run.waiting.tickets) {
        showApproval({ runId: run.run_id, toolCallId: t.tool_call_id, name: t.tool_name, args: t.arguments, message: run.waiting.message });
      }
    }
  }
}

function renderHistory(messages) {
  ui.transcript.replaceChildren();
  state.tools.clear();
  state.bubble = null;
  for (const m of messages) {
    const text = (m.content || []).filter((b) => b.type === "text").map((b) => b.text).join("");
    if (m.role === "tool") {
      const card = state.tools.get(m.tool_call_id);
      if (card) toolResult(card, "succeeded", text);
      continue;
    }
    if (m.role === "system") continue;
    if (text) addMessage(m.role, text);
    for (const call of m.tool_calls || []) {
      toolCard(call.id, call.name).querySelector(".args").textContent = json(call.arguments);
    }
    state.bubble = null;
  }
}

async function selectThread(threadId, loadHistory) {
  state.threadId = threadId;
  history.replaceState(null, "", threadId ? `#thread=${encodeURIComponent(threadId)}` : location.pathname);
  ui.title.textContent = threadId ? `Thread ${threadId}` : "New thread";
  ui.approvals.replaceChildren();
  for (const b of ui.threads.querySelectorAll("button")) {
    if (b.dataset.threadId === threadId) b.setAttribute("aria-current", "true");
    else b.removeAttribute("aria-current");
  }
  if (!threadId) {
    ui.transcript.replaceChildren();
    ui.runs.replaceChildren();
    return;
  }
  if (!loadHistory) return;
  try {
    const page = await api.messages(threadId);
    renderHistory(page.messages);
    await loadRuns(threadId);
    setStatus(`Thread ${threadId}: ${page.total} messages.`);
  } catch (error) {
    report(error);
  }
}

// ---- timeline ---------------------------------------------------------------------------

function details(event) {
  const { event_type: _type, ...rest } = event;
  const line = JSON.stringify(rest);
  if (line.length <= 120) return el("code", { text: line });
  return el("details", {}, el("summary", { text: `${line.slice(0, 117)}…` }), el("pre", { text: json(rest) }));
}

function renderTimeline(entries, replayed) {
  const first = entries.length ? entries[0].at : 0;
  ui.timelineRows.replaceChildren(...entries.map(({ seq, at, event }) => el("tr", { "data-event-type": event.event_type },
    el("td", { text: seq ?? "" }),
    el("td", { text: new Date(at).toISOString().slice(11, 23) }),
    el("td", { text: String(at - first) }),
    el("td", { text: event.event_type }),
    el("td", {}, details(event)))));
  ui.timelineNote.textContent = replayed
    ? `${entries.length} events replayed from the server's buffer; times are when this tab received them.`
    : `${entries.length} events, timed when this tab received them live.`;
}

function serverTimes(run) {
  const at = (secs) => (secs ? new Date(secs * 1000).toISOString().slice(11, 19) : "—");
  return `Server record: ${run.status}, created ${at(run.created_at)}, started ${at(run.started_at)}, `
    + `finished ${at(run.finished_at)} UTC, ${run.steps} steps, ${run.input_tokens}/${run.output_tokens} tokens.`;
}

async function openTimeline(runId) {
  ui.timelineHeading.textContent = `Run timeline ${runId}`;
  ui.timelineRows.replaceChildren();
  ui.timelineNote.textContent = "Loading…";
  $("timeline-run").textContent = "";
  if (!ui.timeline.open) ui.timeline.showModal();
  ui.timelineHeading.focus();
  api.run(runId).then((run) => { $("timeline-run").textContent = serverTimes(run); }).catch(() => {});
  const seen = state.events.get(runId);
  if (seen && seen.length) {
    renderTimeline(seen, false);
    if (state.activeRunId === runId) ui.timelineNote.textContent += " The run is still going: reopen to refresh.";
    return;
  }
  const entries = [];
  try {
    let after = null;
    for (let pass = 0; pass < 20; pass += 1) {
      let last = null;
      const got = await api.runEvents(runId, after, (event, seq) => {
        if (event === null) return;
        entries.push({ seq, at: Date.now(), event });
        last = event;
        after = seq;
      });
      if (got === null) break;
      // A suspended run that was resumed later continues after its "suspended" finish.
      const resumed = last?.event_type === "run_finish" && last.termination?.type === "suspended";
      if (!resumed || (await api.run(runId)).status === "waiting") break;
    }
    if (!entries.length) {
      ui.timelineNote.textContent = "This server no longer holds the events of this run (its journal was pruned).";
      return;
    }
    renderTimeline(entries, true);
  } catch (error) {
    ui.timelineNote.textContent = error.message;
  }
}

// ---- wiring -----------------------------------------------------------------------------

async function start() {
  $("api-key").value = loadKey();
  $("key-form").addEventListener("submit", async (e) => {
    e.preventDefault();
    saveKey($("api-key").value.trim());
    setStatus("API key saved for this tab.");
    await boot();
  });
  ui.composer.addEventListener("submit", (e) => {
    e.preventDefault();
    const text = ui.message.value.trim();
    if (!ui.agent.value.trim()) {
      setStatus("Choose or type an agent id first.", true);
      ui.agent.focus();
      return;
    }
    if (text && !state.activeRunId) send(text);
  });
  ui.message.addEventListener("keydown", (e) => {
    if (e.key === "Enter" && !e.shiftKey && !e.isComposing) {
      e.preventDefault();
      ui.composer.requestSubmit();
    }
  });
  ui.cancel.addEventListener("click", async () => {
    const runId = state.activeRunId;
    if (!runId) return;
    try {
      await api.cancel(runId);
      if (state.activeRunId === runId) setStatus(`Cancel requested for run ${runId}.`);
    } catch (error) {
      report(error);
    }
  });
  $("new-thread").addEventListener("click", () => { selectThread(null, false); ui.message.focus(); });
  $("refresh-threads").addEventListener("click", () => loadThreads().catch(report));
  $("close-timeline").addEventListener("click", () => ui.timeline.close());
  await boot();
}

async function boot() {
  try {
    const agents = await loadAgents();
    await loadThreads();
    const wanted = new URLSearchParams(location.hash.slice(1)).get("thread");
    if (wanted) await selectThread(wanted, true);
    setStatus(agents.length ? "Ready." : "Ready. This server does not list its agents: type an agent id.");
    document.body.dataset.ready = "true";
  } catch (error) {
    report(error);
  }
}

start();

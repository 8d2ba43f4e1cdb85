/* The teacher pages' one script: streaming chat replies (fetch + ReadableStream over the
 * SSE endpoint; 停止生成 aborts that fetch, which closes the server's stream and the
 * model's with it), the reply actions (复制, 重新生成, 继续, exports are plain links),
 * archive/restore, and the memory panel. No framework, no build step.
 *
 * Safety rule: text from the model or from history only ever reaches the page through
 * textContent while it streams; once a reply is done it is replaced by the server's
 * sanitized rendering (markdown-it without raw HTML, then nh3). Nothing here assigns model
 * text to innerHTML. Every call sends the session's CSRF token.
 */
(function () {
  "use strict";

  var configNode = document.getElementById("page-config");
  var config = configNode ? JSON.parse(configNode.textContent) : {};
  var errors = config.errors || {};
  var ui = config.ui || {};

  function csrfToken() {
    var meta = document.querySelector('meta[name="csrf-token"]');
    return meta ? meta.content : "";
  }

  /* A stable code as a sentence. Some API errors already carry a sentence written for the
   * person, in their language (the red-line refusal names what it found): use it. */
  function errorText(code, data) {
    if (data && data.message && (config.server_sentences || []).indexOf(code) >= 0) return data.message;
    return errors[code] || errors[""] || String(code || "");
  }

  function codeForStatus(status) {
    return { 401: "unauthorized", 403: "forbidden", 404: "not_found" }[status] || "";
  }

  function format(template, values) {
    return String(template || "").replace(/\{(\w+)\}/g, function (whole, name) {
      return Object.prototype.hasOwnProperty.call(values, name) ? values[name] : whole;
    });
  }

  function headers(extra) {
    var out = { "X-CSRFToken": csrfToken(), "X-Requested-With": "fetch" };
    for (var key in extra || {}) out[key] = extra[key];
    return out;
  }

  /* JSON API call: resolves to {ok, data} or {ok: false, code}. Never throws. */
  function api(method, url, body) {
    var init = { method: method, credentials: "same-origin", headers: headers({ Accept: "application/json" }) };
    if (body !== undefined) {
      init.headers["Content-Type"] = "application/json";
      init.body = JSON.stringify(body);
    }
    return fetch(url, init).then(
      function (response) {
        return response.text().then(function (raw) {
          var data = null;
          try { data = raw ? JSON.parse(raw) : null; } catch (e) { data = null; }
          if (response.ok) return { ok: true, data: data };
          return { ok: false, status: response.status, code: (data && data.code) || codeForStatus(response.status), data: data };
        });
      },
      function () { return { ok: false, code: "network" }; }
    );
  }

  /* A fragment request that was redirected (to the login page) means the session
     expired: go there instead of pasting a whole page into the chat. */
  function expired(response) {
    if (response.redirected) { window.location.assign(response.url); return true; }
    return false;
  }

  /* Server-rendered, sanitized HTML fragment -> element (never model text). */
  function fragment(html) {
    var holder = document.createElement("template");
    holder.innerHTML = html.trim();
    return holder.content.firstElementChild;
  }

  function show(node, visible) { if (node) node.hidden = !visible; }

  /* Restore an archived thread (chat page banner, archive list), then open it. */
  function initRestore(apiRoot, notice) {
    document.querySelectorAll(".restore-button").forEach(function (button) {
      button.addEventListener("click", function () {
        button.disabled = true;
        api("POST", apiRoot + "threads/" + encodeURIComponent(button.dataset.threadId) + "/restore").then(function (result) {
          button.disabled = false;
          if (!result.ok) {
            if (notice) { notice.textContent = errorText(result.code, result.data); show(notice, true); }
            return;
          }
          window.location.assign(button.dataset.next);
        });
      });
    });
  }

  /* Clipboard API where the page is a secure context (https, localhost); elsewhere (a
   * school server on plain http) the older selection + execCommand("copy"). */
  function copyText(text) {
    if (navigator.clipboard && window.isSecureContext) {
      return navigator.clipboard.writeText(text).then(function () { return true; }, function () { return legacyCopy(text); });
    }
    return Promise.resolve(legacyCopy(text));
  }

  function legacyCopy(text) {
    var box = document.createElement("textarea");
    box.value = text;
    box.setAttribute("readonly", "");
    box.style.position = "fixed";
    box.style.opacity = "0";
    document.body.appendChild(box);
    box.select();
    var ok = false;
    try { ok = document.execCommand("copy"); } catch (e) { ok = false; }
    box.remove();
    return ok;
  }

  document.querySelectorAll("form.autosubmit select").forEach(function (select) {
    select.addEventListener("change", function () { select.form.submit(); });
  });

  /* ------------------------------------------------------------------ chat */

  function initChat(root) {
    var apiRoot = root.dataset.apiRoot;
    var agentId = root.dataset.agentId;
    var threadId = root.dataset.threadId || "";
    var messages = document.getElementById("messages");
    var form = document.getElementById("composer");
    var input = document.getElementById("composer-input");
    var sendButton = document.getElementById("send-button");
    var stopButton = document.getElementById("stop-button");
    var controller = null;  // the AbortController of the reply being streamed
    var chip = document.getElementById("continue-chip");
    var notice = document.getElementById("chat-notice");
    var title = document.getElementById("thread-title");
    var sidebar = document.getElementById("sidebar");
    var continueRunId = "";
    var busy = false;

    function scrollToEnd() { messages.scrollTop = messages.scrollHeight; window.scrollTo(0, document.body.scrollHeight); }
    function urlFor(template, id) { return template.replace(template.indexOf("THREAD_ID") >= 0 ? "THREAD_ID" : "RUN_ID", encodeURIComponent(id)); }
    function say(code, data) { notice.textContent = errorText(code, data); show(notice, true); }

    function setContinue(runId) {
      continueRunId = runId || "";
      show(chip, !!continueRunId);
      messages.querySelectorAll(".turn.selected").forEach(function (t) { t.classList.remove("selected"); });
      if (continueRunId) {
        var turn = document.getElementById("turn-" + continueRunId);
        if (turn) turn.classList.add("selected");
        input.focus();
      }
    }

    function setBusy(value) {
      busy = value;
      sendButton.disabled = value;
      show(sendButton, !value);
      show(stopButton, value);
      root.classList.toggle("busy", value);
    }

    function adoptThread(id) {
      if (!id || id === threadId) return;
      threadId = id;
      root.dataset.threadId = id;
      history.replaceState(null, "", urlFor(root.dataset.threadUrl, id));
      show(document.getElementById("thread-actions"), true);
    }

    function refreshSidebar() {
      var url = root.dataset.threadRowsUrl + "?current=" + encodeURIComponent(threadId);
      return fetch(url, { credentials: "same-origin" }).then(function (response) {
        if (expired(response) || !response.ok) return;
        return response.text().then(function (html) {
          document.getElementById("thread-list").innerHTML = html;
          var current = document.querySelector('#thread-list a[aria-current="page"] .title');
          if (current) title.textContent = current.textContent;
        });
      }).catch(function () {});
    }

    function failTurn(turn, code) {
      var bubble = turn.querySelector(".assistant");
      bubble.classList.remove("running");
      bubble.classList.add("failed");
      bubble.textContent = "";
      var p = document.createElement("p");
      p.className = "notice error";
      p.textContent = errorText(code);
      bubble.appendChild(p);
      turn.classList.remove("streaming");
    }

    /* `settle`: the run may still be finishing on the server (a stopped reply is recorded
     * when the server notices the closed stream): ask again a few times until it is. */
    function swapInRendered(turn, runId, settle) {
      var tries = settle ? 20 : 1;
      function attempt() {
        return fetch(urlFor(root.dataset.runRowUrl, runId), { credentials: "same-origin" }).then(function (response) {
          if (expired(response) || !response.ok) throw new Error(String(response.status));
          return response.text();
        }).then(function (html) {
          var rendered = fragment(html);
          if (rendered && rendered.dataset.status === "running" && --tries > 0) {
            return new Promise(function (resolve) { setTimeout(resolve, 400); }).then(attempt);
          }
          if (rendered && rendered.dataset.status !== "running") turn.replaceWith(rendered);
          else throw new Error("still running");
        });
      }
      return attempt().catch(function () {
        // Keep the streamed plain text; just stop the "generating" indicator.
        turn.classList.remove("streaming");
        var pending = turn.querySelector(".generating");
        if (pending) pending.remove();
      });
    }

    function parseEvent(block) {
      var name = "", data = "";
      block.split(/\r?\n/).forEach(function (line) {
        if (line.indexOf("event:") === 0) name = line.slice(6).trim();
        else if (line.indexOf("data:") === 0) data += line.slice(5).trim();
      });
      if (!name) return null;
      try { return { name: name, data: data ? JSON.parse(data) : {} }; } catch (e) { return null; }
    }

    /* The teacher pressed stop: keep what arrived, mark it, then show the server's record. */
    function stoppedTurn(turn, runId) {
      turn.classList.remove("streaming");
      var bubble = turn.querySelector(".assistant");
      bubble.classList.remove("running");
      bubble.classList.add("stopped");
      var pending = turn.querySelector(".generating");
      if (pending) pending.remove();
      var mark = document.createElement("p");
      mark.className = "cut-note";
      mark.textContent = ui.stopped || "";
      bubble.appendChild(mark);
      return runId ? swapInRendered(turn, runId, true) : Promise.resolve();
    }

    function readStream(response, turn, signal) {
      var reader = response.body.getReader();
      var decoder = new TextDecoder();
      var buffer = "";
      var out = turn.querySelector(".stream-text");
      var finished = null;
      var runId = "";

      function handle(event) {
        if (event.name === "started") {
          adoptThread(event.data.thread_id);
          runId = event.data.run_id || "";
          if (runId) turn.id = "turn-" + runId;
        } else if (event.name === "delta") {
          out.textContent += event.data.text || "";
          scrollToEnd();
        } else if (event.name === "done") {
          // Completed or failed, the server's rendering says it right (sanitized reply or a friendly note).
          finished = swapInRendered(turn, event.data.run_id);
        } else if (event.name === "error") {
          finished = Promise.resolve(failTurn(turn, event.data.code));
        }
      }

      function pump() {
        return reader.read().then(function (chunk) {
          if (chunk.done) return;
          buffer += decoder.decode(chunk.value, { stream: true });
          var cut;
          while ((cut = buffer.search(/\r?\n\r?\n/)) >= 0) {
            var block = buffer.slice(0, cut);
            buffer = buffer.slice(cut).replace(/^\r?\n\r?\n/, "");
            var event = parseEvent(block);
            if (event) handle(event);
          }
          return pump();
        });
      }

      return pump().catch(function () {}).then(function () {
        if (finished) return finished;
        if (signal.aborted) return stoppedTurn(turn, runId);
        failTurn(turn, "network");
      });
    }

    function send() {
      var text = input.value;
      if (busy || input.disabled || !text.trim()) return;
      show(notice, false);
      var hint = document.getElementById("empty-hint");
      if (hint) hint.remove();
      var turn = document.getElementById("turn-template").content.firstElementChild.cloneNode(true);
      turn.querySelector(".user .text").textContent = text;
      var body = { input: text };
      if (threadId) body.thread_id = threadId;
      if (continueRunId) {
        body.context = { run_id: continueRunId };
        show(turn.querySelector(".tag.continued"), true);
      }
      messages.appendChild(turn);
      scrollToEnd();
      input.value = "";
      setContinue("");
      setBusy(true);
      controller = new AbortController();
      var signal = controller.signal;
      fetch(apiRoot + "agents/" + encodeURIComponent(agentId) + "/run/stream", {
        method: "POST",
        credentials: "same-origin",
        headers: headers({ "Content-Type": "application/json", Accept: "text/event-stream" }),
        body: JSON.stringify(body),
        signal: signal
      }).then(function (response) {
        if (response.ok) return readStream(response, turn, signal);
        return response.json().catch(function () { return {}; }).then(function (data) {
          failTurn(turn, (data && data.code) || codeForStatus(response.status));
          if (!input.value) input.value = text;  // nothing was sent: give the text back
        });
      }, function () {
        // Stopped before the reply began, or the network failed: nothing to keep.
        failTurn(turn, signal.aborted ? "client_disconnected" : "network");
        if (!input.value) input.value = text;
      }).then(function () {
        controller = null;
        setBusy(false);
        scrollToEnd();
        return refreshSidebar();
      }).then(function () {
        // Each finished exchange, sidebar included, bumps this (tests and tools wait on it).
        root.dataset.exchanges = String(Number(root.dataset.exchanges || 0) + 1);
      });
    }

    form.addEventListener("submit", function (event) { event.preventDefault(); send(); });
    input.addEventListener("keydown", function (event) {
      if (event.key === "Enter" && (event.ctrlKey || event.metaKey)) { event.preventDefault(); send(); }
    });
    stopButton.addEventListener("click", function () { if (controller) controller.abort(); });

    function sendText(text, continueFrom) {
      if (busy || input.disabled) return;
      input.value = text;
      setContinue(continueFrom || "");
      send();
    }

    messages.addEventListener("click", function (event) {
      var button = event.target.closest("button");
      if (!button) return;
      var turn = button.closest(".turn");
      if (button.classList.contains("example")) {
        sendText(button.textContent.trim());
      } else if (button.classList.contains("continue-button")) {
        setContinue(button.dataset.runId);
      } else if (button.classList.contains("continue-cut")) {
        // The reply stopped at the length cap: ask for the rest, on top of that reply.
        sendText(button.textContent.trim(), button.dataset.runId);
      } else if (button.classList.contains("regenerate-button") && turn) {
        // The same input, on the same artifact if that turn continued one.
        sendText(turn.querySelector(".bubble.user .text").textContent, turn.dataset.continuedFrom);
      } else if (button.classList.contains("copy-button") && turn) {
        var raw = turn.querySelector(".raw-output");
        copyText(raw ? raw.value : "").then(function (ok) {
          if (!ok) return say("clipboard");
          button.dataset.label = button.dataset.label || button.textContent;
          button.textContent = ui.copied || button.dataset.label;
          button.classList.add("done");
          setTimeout(function () { button.textContent = button.dataset.label; button.classList.remove("done"); }, 1500);
        });
      }
    });
    document.getElementById("continue-cancel").addEventListener("click", function () { setContinue(""); });

    var toggle = document.querySelector(".sidebar-toggle");
    toggle.addEventListener("click", function () {
      var open = sidebar.classList.toggle("open");
      toggle.setAttribute("aria-expanded", open ? "true" : "false");
    });

    var renameForm = document.getElementById("rename-form");
    var renameInput = document.getElementById("rename-input");
    var actions = document.getElementById("thread-actions");
    function renaming(on) {
      show(renameForm, on); show(title, !on); show(actions, !on);
      if (on) { renameInput.value = title.textContent.trim(); renameInput.focus(); renameInput.select(); }
    }
    document.getElementById("rename-button").addEventListener("click", function () { renaming(true); });
    document.getElementById("rename-cancel").addEventListener("click", function () { renaming(false); });
    renameForm.addEventListener("submit", function (event) {
      event.preventDefault();
      var value = renameInput.value.trim();
      if (!value || !threadId) return;
      api("PATCH", apiRoot + "threads/" + encodeURIComponent(threadId), { title: value }).then(function (result) {
        if (!result.ok) return say(result.code, result.data);
        title.textContent = (result.data && result.data.title) || value;
        renaming(false);
        refreshSidebar();
      });
    });
    document.getElementById("archive-button").addEventListener("click", function () {
      if (!threadId || !window.confirm(ui.archive_confirm)) return;
      api("POST", apiRoot + "threads/" + encodeURIComponent(threadId) + "/archive").then(function (result) {
        if (!result.ok) return say(result.code);
        window.location.assign(root.dataset.chatUrl);
      });
    });

    initRestore(apiRoot, notice);
    if (window.location.hash.indexOf("#turn-") === 0) {
      var target = document.getElementById(window.location.hash.slice(1));
      if (target) { target.classList.add("found"); target.scrollIntoView(); }
    } else {
      scrollToEnd();
    }
    root.dataset.ready = "1";
  }

  /* ------------------------------------------------- what the model saw */

  /* A reply's "模型看到了什么" drawer loads its context sections the first time it is
   * opened: a server-rendered, escaped fragment (never model text through innerHTML). */
  document.addEventListener("toggle", function (event) {
    var drawer = event.target;
    if (!drawer.classList || !drawer.classList.contains("context-drawer") || !drawer.open) return;
    if (drawer.dataset.loaded) return;
    drawer.dataset.loaded = "loading";
    var body = drawer.querySelector(".context-body");
    fetch(drawer.dataset.url, { credentials: "same-origin", headers: headers({ Accept: "text/html" }) }).then(
      function (response) {
        if (expired(response)) return;
        if (!response.ok) throw new Error(String(response.status));
        return response.text().then(function (html) {
          body.textContent = "";
          body.appendChild(fragment(html));
          drawer.dataset.loaded = "1";
        });
      }
    ).catch(function () {
      body.textContent = errorText("network");
      delete drawer.dataset.loaded;
    });
  }, true);

  /* ---------------------------------------------------------- memory panel */

  function initMemory(root) {
    var apiRoot = root.dataset.apiRoot;
    var agentPath = apiRoot + "agents/" + encodeURIComponent(root.dataset.agentId) + "/memory";
    var notice = document.getElementById("memory-notice");
    var addForm = document.getElementById("add-fact-form");
    var addInput = document.getElementById("add-fact-input");
    var addError = document.getElementById("add-fact-error");
    var limit = ui.max_facts;

    function tell(text, isError) {
      notice.textContent = text;
      notice.classList.toggle("error", !!isError);
      show(notice, !!text);
    }

    function confidenceText(value) {
      if (typeof value !== "number") return "";
      var percent = Math.round(value <= 1 ? value * 100 : value);
      return format(ui.confidence, { n: percent });
    }

    function row(templateId, item) {
      var li = document.getElementById(templateId).content.firstElementChild.cloneNode(true);
      li.dataset.id = item.id;
      li.querySelector(".fact-text").textContent = item.text;
      var meta = li.querySelector(".meta");
      if (meta) meta.textContent = confidenceText(item.confidence);
      provenance(li.querySelector(".provenance"), item);
      return li;
    }

    function when(iso) {
      if (!iso) return "";
      var lang = document.documentElement.lang || undefined;
      try {
        return new Date(iso).toLocaleString(lang, { year: "numeric", month: "numeric", day: "numeric",
                                                   hour: "2-digit", minute: "2-digit" });
      } catch (e) { return iso.slice(0, 16).replace("T", " "); }
    }

    /* Where a fact or candidate came from (the conversation and the reply, as a link),
     * and who confirmed it when. Text only through textContent. */
    function provenance(slot, item) {
      if (!slot) return;
      var parts = [];
      if (item.source_thread) {
        var from = document.createElement("span");
        from.className = "source";
        from.textContent = format(ui.from_conversation, { date: when(item.source_at), excerpt: item.source_excerpt || "" }) + " ";
        var link = document.createElement("a");
        link.className = "source-link";
        link.href = root.dataset.threadUrl.replace("THREAD_ID", encodeURIComponent(item.source_thread)) +
          "#turn-" + encodeURIComponent(item.source_run);
        link.textContent = ui.view_reply;
        from.appendChild(link);
        parts.push(from);
      } else if (item.origin !== "manual") {
        parts.push(document.createTextNode(ui.source_gone));
      }
      if (item.confirmed_at) {
        var template = item.origin === "manual" ? ui.added_by : (item.confirmed_by_name ? ui.confirmed_by : ui.confirmed_at);
        parts.push(document.createTextNode(format(template, { who: item.confirmed_by_name || "", date: when(item.confirmed_at) }).trim()));
      }
      if (item.seen_count > 1) parts.push(document.createTextNode(format(ui.seen, { n: item.seen_count })));
      parts.forEach(function (part, index) {
        if (index) slot.appendChild(document.createTextNode(" · "));
        slot.appendChild(part);
      });
      show(slot, parts.length > 0);
    }

    function fill(listId, emptyId, countId, items, templateId, max) {
      var list = document.getElementById(listId);
      list.textContent = "";
      items.forEach(function (item) { list.appendChild(row(templateId, item)); });
      show(document.getElementById(emptyId), items.length === 0);
      document.getElementById(countId).textContent = max ? format(ui.count_of_max, { n: items.length, max: max }) : String(items.length);
    }

    function load() {
      return api("GET", agentPath).then(function (result) {
        show(document.getElementById("memory-loading"), false);
        if (!result.ok) { tell(errorText(result.code), true); return; }
        var data = result.data || {};
        if (data.limit) limit = data.limit;
        fill("confirmed-list", "confirmed-empty", "confirmed-count", data.confirmed || [], "fact-row-template", limit);
        fill("pending-list", "pending-empty", "pending-count", data.pending || [], "candidate-row-template", 0);
        root.dataset.loaded = String(Number(root.dataset.loaded || 0) + 1);
      });
    }

    /* The confirm/add response lists the facts that made room (`evicted`) and carries a
     * sentence for the person, in their language; fall back to ours. */
    function afterWrite(result, doneText) {
      var data = result.data || {};
      var evicted = Array.isArray(data.evicted) ? data.evicted : [];
      var text = data.message || (evicted.length
        ? format(ui.evicted, { max: limit, text: evicted.map(function (f) { return f.text; }).join("；") })
        : doneText);
      tell(text, false);
      notice.classList.toggle("warning", evicted.length > 0);
      return load();
    }

    function editing(li, on) {
      var text = li.querySelector(".fact-text");
      var box = li.querySelector(".fact-edit textarea");
      if (on) box.value = text.textContent;
      show(li.querySelector(".fact-edit"), on);
      show(text, !on);
      li.classList.toggle("editing", on);
      li.querySelectorAll("[data-action]").forEach(function (button) {
        var action = button.dataset.action;
        if (action === "edit") show(button, !on);
        if (action === "save" || action === "cancel") show(button, on);
      });
      if (on) box.focus();
    }

    function rowFailed(li, result) {
      var slot = li.querySelector(".row-error");
      slot.textContent = errorText(result.code, result.data);
      show(slot, true);
    }

    root.addEventListener("click", function (event) {
      var button = event.target.closest("button[data-action]");
      if (!button) return;
      var li = button.closest("li.fact");
      var id = encodeURIComponent(li.dataset.id);
      var candidate = li.classList.contains("candidate");
      var action = button.dataset.action;
      var call = null, doneText = "";
      if (action === "edit") return editing(li, true);
      if (action === "cancel") return editing(li, false);
      if (action === "confirm") {
        var body = {};
        var box = li.querySelector(".fact-edit textarea");
        if (li.classList.contains("editing") && box.value.trim() && box.value.trim() !== li.querySelector(".fact-text").textContent) {
          body.text = box.value.trim();
        }
        call = api("POST", apiRoot + "memory/candidates/" + id + "/confirm", body);
        doneText = ui.confirmed;
      } else if (action === "save") {
        call = api("PATCH", apiRoot + "memory/facts/" + id, { text: li.querySelector(".fact-edit textarea").value.trim() });
        doneText = ui.saved;
      } else if (action === "delete") {
        call = api("DELETE", apiRoot + (candidate ? "memory/candidates/" : "memory/facts/") + id);
        doneText = ui.deleted;
      }
      if (!call) return;
      tell("", false);
      button.disabled = true;
      call.then(function (result) {
        button.disabled = false;
        if (!result.ok) return rowFailed(li, result);
        return afterWrite(result, doneText);
      });
    });

    addForm.addEventListener("submit", function (event) {
      event.preventDefault();
      var text = addInput.value.trim();
      if (!text) return;
      show(addError, false);
      tell("", false);
      addForm.classList.remove("refused");
      api("POST", agentPath + "/facts", { text: text }).then(function (result) {
        if (!result.ok) {
          addError.textContent = errorText(result.code, result.data);
          addForm.classList.toggle("refused", result.code === "sensitive_content");
          show(addError, true);
          return;
        }
        addInput.value = "";
        return afterWrite(result, ui.added);
      });
    });

    load();
  }

  var chatRoot = document.getElementById("chat");
  if (chatRoot) initChat(chatRoot);
  var archivedRoot = document.getElementById("archived");
  if (archivedRoot) initRestore(archivedRoot.dataset.apiRoot, document.getElementById("chat-notice"));
  var memoryRoot = document.getElementById("memory");
  if (memoryRoot) initMemory(memoryRoot);
})();

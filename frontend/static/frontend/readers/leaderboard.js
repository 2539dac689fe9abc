/*
 * Leaderboard page: live updates and the estimator switcher, by swapping server-rendered
 * fragments.
 *
 * The server renders the leaderboard section (frontend/readers/_leaderboard.html, the one
 * definition of the table) for the page and, at its fragment URL, on its own. The page
 * works without JavaScript: the estimator switcher and the pages of a large table are
 * links. With JavaScript, the switcher becomes radio buttons; choosing one, or following
 * a page link, fetches the fragment named by the control's data-fragment and swaps it in
 * (no reload), and the address bar follows. On the live page the script polls the tiny
 * status endpoint (served version, newest version's status and progress; a few hundred
 * bytes) every few seconds with If-None-Match, so an unchanged status is a 304 with no
 * body; it shows the stage of a running recompute, and when a newer ready version exists
 * swaps in the section's data-refresh fragment; when the status says the newest input
 * failed (or no longer has), it swaps in the failure notice's own fragment (failureUrl).
 * Polling pauses while the tab is hidden.
 * The reader's table: its filter form swaps in its answer the same way (focus stays in
 * the search box, and #table-results-status announces "3 results"); the dataset chooser
 * gets a search box that narrows its list; a table wider than its frame shows a hint and
 * a shade on the side that hides columns (data-overflow).
 * No external requests.
 */
(function () {
  "use strict";

  function byId(id) {
    return document.getElementById(id);
  }

  var configNode = byId("leaderboard-config");
  if (!configNode) return;
  var config;
  try {
    config = JSON.parse(configNode.textContent);
  } catch (error) {
    return;
  }

  var state = {
    version: config.version,
    failureVersion: config.failureVersion || null,
    timer: null,
    delay: config.pollSeconds || 5,
    request: 0,
    etag: null
  };

  function section() {
    return byId("leaderboard");
  }

  function setText(id, text) {
    var node = byId(id);
    if (node) node.textContent = text;
  }

  /* --- the section: progressive enhancement and swapping ----------------------------- */

  function enhance() {
    var switcher = byId("estimator-switcher");
    var links = byId("estimator-links");
    if (switcher && links) {
      switcher.hidden = false;
      links.hidden = true;
    }
    var datasetSearch = section() ? section().querySelector(".dataset-search") : null;
    if (datasetSearch) datasetSearch.hidden = false;
    watchOverflow();
    renderUpdated();
  }

  function fetchFragment(url) {
    var ticket = ++state.request;
    return fetch(url, { headers: { Accept: "text/html" }, credentials: "same-origin" }).then(function (response) {
      if (!response.ok) {
        var error = new Error("HTTP " + response.status);
        error.retryAfter = Number(response.headers.get("Retry-After")) || 0;
        throw error;
      }
      return response.text();
    }).then(function (html) {
      if (ticket !== state.request) return null; // a later choice wins
      var holder = document.createElement("template");
      holder.innerHTML = html.trim();
      var fresh = holder.content.firstElementChild;
      if (!fresh || fresh.id !== "leaderboard") throw new Error("not a leaderboard fragment");
      // autofocus is for a page's first load (a search's answer); a swap keeps focus itself
      Array.prototype.forEach.call(fresh.querySelectorAll("[autofocus]"), function (node) {
        node.removeAttribute("autofocus");
      });
      return swap(fresh);
    });
  }

  function swap(fresh) {
    var old = section();
    var focused = document.activeElement;
    var focusKey = null;
    if (focused && old.contains(focused)) {
      focusKey = focused.getAttribute("data-testid") || focused.id || null;
    }
    old.replaceWith(fresh);
    enhance();
    if (focusKey) {
      var again = fresh.querySelector('[data-testid="' + focusKey + '"]') || byId(focusKey);
      var closed = again ? again.closest("details:not([open])") : null;
      if (closed) closed.open = true; // the filter form folds when nothing is filtered
      if (again) again.focus();
    }
    var version = Number(fresh.getAttribute("data-version"));
    if (version) {
      state.version = version;
      setText("live-shown-version", version);
    }
    return fresh;
  }

  function follow(control) {
    var fragment = control.getAttribute("data-fragment");
    var href = control.getAttribute("data-href") || control.getAttribute("href");
    if (!fragment) return false;
    fetchFragment(fragment).then(function (fresh) {
      if (fresh && href) window.history.replaceState(null, "", href);
    }, function () {
      if (href) window.location.assign(href); // the page itself still works
    });
    return true;
  }

  document.addEventListener("change", function (event) {
    var input = event.target;
    if (input.name === "estimator-choice" && input.checked && section().contains(input)) follow(input);
  });

  document.addEventListener("click", function (event) {
    if (event.defaultPrevented || event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
    var link = event.target.closest ? event.target.closest("a[data-fragment]") : null;
    if (link && section().contains(link) && follow(link)) event.preventDefault();
  });

  /* --- the reader's table: the filter form, the dataset chooser's search, overflow ------ */

  /* The filter form (a GET form that works without script) swaps in its answer: focus
     stays where it was (the search box after a search), and the result is announced. */
  document.addEventListener("submit", function (event) {
    var form = event.target;
    if (!form.matches || !form.matches("form.table-filter") || !section().contains(form)) return;
    var action = form.getAttribute("data-fragment-action");
    if (!action) return;
    event.preventDefault();
    var query = new URLSearchParams(new FormData(form)).toString();
    var href = window.location.pathname + (query ? "?" + query : "");
    fetchFragment(action + (query ? "?" + query : "")).then(function (fresh) {
      if (!fresh) return;
      window.history.replaceState(null, "", href);
      var answer = fresh.querySelector("form.table-filter");
      announceResults(answer ? answer.getAttribute("data-results") : "");
    }, function () {
      window.location.assign(href); // the page itself still works
    });
  });

  function announceResults(text) {
    var status = byId("table-results-status");
    if (!status || !text) return;
    // emptied first: the same answer twice ("3 results") is announced twice
    status.textContent = "";
    window.setTimeout(function () { status.textContent = text + "."; }, 50);
  }

  /* The dataset chooser's search: type to narrow the list (each item's text as the
     server wrote it, the display name and its detail, and the key its box sends). */
  document.addEventListener("input", function (event) {
    if (event.target.id !== "filter-ds-search") return;
    var words = event.target.value.toLocaleLowerCase().split(/\s+/).filter(Boolean);
    var items = section().querySelectorAll("#filter-ds > li");
    var shown = 0;
    Array.prototype.forEach.call(items, function (item) {
      var box = item.querySelector("input");
      var text = (item.textContent + " " + (box ? box.value : "")).toLocaleLowerCase();
      var keep = words.every(function (word) { return text.indexOf(word) !== -1; });
      item.hidden = !keep;
      if (keep) shown += 1;
    });
    var none = section().querySelector("[data-testid=filter-ds-none]");
    if (none) none.hidden = shown > 0;
    setText("filter-ds-count", words.length ? shown + " of " + items.length + " datasets" : "");
  });

  document.addEventListener("keydown", function (event) {
    // Enter in the chooser's search narrows the list; it does not apply the form
    if (event.key === "Enter" && event.target.id === "filter-ds-search") event.preventDefault();
  });

  /* A table wider than its frame: the hint above it and a shade on the hidden side. */
  var overflowWatch = { observer: null, frame: 0 };

  function markOverflow() {
    overflowWatch.frame = 0;
    var wrap = byId("leaderboard-table-wrap");
    var hint = byId("table-scroll-hint");
    if (!wrap || !hint) return;
    var extra = wrap.scrollWidth - wrap.clientWidth;
    var sides = [];
    if (extra > 1 && wrap.scrollLeft > 1) sides.push("left");
    if (extra > 1 && wrap.scrollLeft < extra - 1) sides.push("right");
    wrap.setAttribute("data-overflow", sides.join(" "));
    hint.hidden = extra <= 1;
    if (extra > 1) wrap.setAttribute("aria-describedby", hint.id);
    else wrap.removeAttribute("aria-describedby");
  }

  function scheduleOverflow() {
    if (!overflowWatch.frame) overflowWatch.frame = window.requestAnimationFrame(markOverflow);
  }

  function watchOverflow() {
    var wrap = byId("leaderboard-table-wrap");
    if (overflowWatch.observer) overflowWatch.observer.disconnect();
    if (wrap && window.ResizeObserver) {
      overflowWatch.observer = new ResizeObserver(scheduleOverflow);
      overflowWatch.observer.observe(wrap);
      if (wrap.firstElementChild) overflowWatch.observer.observe(wrap.firstElementChild);
    }
    markOverflow();
  }

  window.addEventListener("resize", scheduleOverflow);
  document.addEventListener("scroll", function (event) {
    if (event.target.id === "leaderboard-table-wrap") scheduleOverflow();
  }, true);

  /* --- "updated 12 s ago" ------------------------------------------------------------ */

  function ago(seconds) {
    if (seconds < 60) return Math.max(0, Math.round(seconds)) + " s ago";
    if (seconds < 3600) return Math.round(seconds / 60) + " min ago";
    if (seconds < 86400) return Math.round(seconds / 3600) + " h ago";
    return Math.round(seconds / 86400) + " days ago";
  }

  function renderUpdated() {
    var holder = byId("snapshot-updated");
    var finished = section() ? section().getAttribute("data-finished-at") : null;
    if (!config.live || !holder || !finished) return;
    var at = new Date(finished);
    if (isNaN(at.getTime())) return;
    var time = document.createElement("time");
    time.id = "snapshot-time";
    time.setAttribute("datetime", at.toISOString());
    time.textContent = ago((Date.now() - at.getTime()) / 1000);
    time.title = at.toISOString().replace("T", " ").slice(0, 19) + " UTC";
    holder.replaceChildren(document.createTextNode("updated "), time);
  }

  /* --- live updates ------------------------------------------------------------------- */

  function showComputing(computing) {
    var box = byId("live-computing");
    if (!box) return;
    if (!computing) {
      box.hidden = true;
      return;
    }
    var percent = Math.round((computing.progress || 0) * 100);
    setText("live-computing-version", computing.version);
    setText("live-stage", computing.stage || "starting");
    setText("live-percent", percent + " %");
    var bar = byId("live-progress");
    if (bar) {
      bar.value = percent;
      bar.textContent = percent + " %";
    }
    var shown = byId("live-shown");
    if (shown) shown.hidden = !state.version;
    box.hidden = false;
  }

  /* The fragment that redraws the shown section: its own data-refresh, else the live one. */
  function refreshUrl() {
    return section().getAttribute("data-refresh") || config.fragmentUrl;
  }

  function showNewVersion() {
    var first = !state.version;
    return fetchFragment(refreshUrl()).then(function (fresh) {
      if (!fresh || !state.version) return;
      fresh.hidden = false;
      var empty = byId("no-results");
      if (empty) empty.hidden = true;
      setText("live-announcement", (first ? "Results version " : "Updated to results version ") + state.version + ".");
    });
  }

  function refreshShown() {
    return fetchFragment(refreshUrl()).then(function (fresh) {
      if (fresh && !fresh.getAttribute("data-pending")) {
        setText("live-announcement", "Results version " + state.version + ": the bootstrap intervals, rank intervals and the evaluation were added.");
      }
    }, function (error) {
      state.etag = null; // ask again in full next time
      throw error;
    });
  }

  /* The status, fetched conditionally: null when unchanged since the last answer (304). */
  function getStatus(url) {
    var headers = { Accept: "application/json" };
    if (state.etag) headers["If-None-Match"] = state.etag;
    // no-store: the browser's cache must not answer for us (we keep the ETag ourselves).
    return fetch(url, { headers: headers, credentials: "same-origin", cache: "no-store" }).then(function (response) {
      if (response.status === 304) return null;
      if (!response.ok) {
        var error = new Error("HTTP " + response.status);
        error.retryAfter = Number(response.headers.get("Retry-After")) || 0;
        throw error;
      }
      return response.json().then(function (body) {
        state.etag = response.headers.get("ETag");
        return body;
      });
    });
  }

  /* The notice that the newest input failed: the status answer (304 while unchanged)
     says whether it changed; the notice itself is the server's fragment (the template
     the page includes; empty once nothing has failed). */
  function refreshFailure(status) {
    var failed = status.failure ? status.failure.version : null;
    if (failed === state.failureVersion || !config.failureUrl) return null;
    return fetch(config.failureUrl, { headers: { Accept: "text/html" }, credentials: "same-origin" })
      .then(function (response) { return response.ok ? response.text() : null; })
      .then(function (html) {
        var slot = byId("recompute-failure-slot");
        if (html === null || !slot) return;
        slot.innerHTML = html.trim();
        state.failureVersion = failed;
      });
  }

  function poll() {
    state.timer = null;
    getStatus(config.statusUrl).then(function (status) {
      if (!status) return null; // nothing changed (the failure, if any, is in the ETag)
      var failure = refreshFailure(status);
      var shown = state.version || 0;
      var newest = status.newest;
      // "Computing" only while a worker runs it (recompute.state): a version its worker
      // left behind is not shown as progressing.
      var running = !status.recompute || status.recompute.state === "computing";
      var computing = running && newest && newest.status === "computing" && newest.version > shown ? newest : null;
      showComputing(computing);
      if (status.version && status.version > shown) {
        return Promise.all([failure, showNewVersion()]).then(function () {
          if (computing && computing.version <= (state.version || 0)) showComputing(null);
        }, function (error) {
          state.etag = null; // ask again in full next time
          throw error;
        });
      }
      if (status.version && status.version === shown && section().getAttribute("data-pending")) {
        // the shown version's board was completed (its bootstrap and evaluation) or is
        // still pending: its status changed, so fetch the section again
        return Promise.all([failure, refreshShown()]);
      }
      return failure;
    }).then(function () {
      state.delay = config.pollSeconds || 5;
    }, function (error) {
      state.delay = Math.min(Math.max(state.delay * 2, error.retryAfter || 0), 120);
    }).then(schedule);
  }

  function schedule() {
    if (state.timer !== null) window.clearTimeout(state.timer);
    state.timer = null;
    if (document.hidden) return;
    state.timer = window.setTimeout(poll, state.delay * 1000);
  }

  /* --- start -------------------------------------------------------------------------- */

  enhance();
  if (config.live) {
    window.setInterval(function () {
      if (!document.hidden) renderUpdated();
    }, 1000);
    document.addEventListener("visibilitychange", function () {
      if (document.hidden) {
        if (state.timer !== null) window.clearTimeout(state.timer);
        state.timer = null;
      } else {
        state.delay = config.pollSeconds || 5;
        poll();
      }
    });
    schedule();
  }
})();

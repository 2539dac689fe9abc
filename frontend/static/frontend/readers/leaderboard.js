/*
 * Leaderboard page: the estimator switcher and live updates.
 *
 * The server renders the whole table (the page works without JavaScript; the switcher
 * is then a list of ?estimator= links). This module reads every estimator's numbers
 * from the page (json_script "leaderboard-data", built by presenters.leaderboard_board),
 * replaces the links with radio buttons, and re-renders the table in the chosen order.
 * On the live page it polls the snapshot history (small: no payloads) every few
 * seconds, shows the stage of a running recompute, and when a newer ready version
 * exists fetches the latest snapshot and re-renders from its payload. Polling pauses
 * while the tab is hidden. No external requests.
 */
(function () {
  "use strict";

  function readJson(id) {
    var node = document.getElementById(id);
    if (!node) return null;
    try {
      return JSON.parse(node.textContent);
    } catch (error) {
      return null;
    }
  }

  var config = readJson("leaderboard-config");
  if (!config) return;

  var DESCRIPTIONS = {
    loo_kl: "Weights the top-K positions so as to predict held-out winners best (log loss, leave-one-out over datasets).",
    loo_tv: "Weights the top-K positions so as to predict held-out winners best, judged by total-variation distance (leave-one-out over datasets).",
    minimax: "Data-independent weights on the top-K positions, chosen to bound the worst-case error whatever the data look like.",
    mle: "The share of datasets each algorithm won (a shared win counts 1/t): the plain win rate.",
    borda: "Points for every position (m \u2212 rank) as a share of all points: rewards being near the top everywhere, not only winning.",
    plackett_luce: "Fits a worth for each algorithm from whole rankings; its probability is its share of the total worth."
  };
  var ORDER = ["loo_kl", "loo_tv", "minimax", "mle", "borda", "plackett_luce"];
  var GROUP_TESTS = { nemenyi: "Nemenyi", wilcoxon: "Wilcoxon" };

  var table = document.getElementById("leaderboard-table");
  var state = {
    board: readJson("leaderboard-data"),
    estimator: table ? table.getAttribute("data-estimator") : null,
    version: config.version,
    finishedAt: config.finishedAt ? new Date(config.finishedAt) : null,
    timer: null,
    delay: config.pollSeconds || 5
  };

  function byId(id) {
    return document.getElementById(id);
  }

  function element(tag, attributes, text) {
    var node = document.createElement(tag);
    Object.keys(attributes || {}).forEach(function (name) {
      node.setAttribute(name, attributes[name]);
    });
    if (text !== undefined && text !== null) node.textContent = text;
    return node;
  }

  function fixed(value, digits) {
    return value === null || value === undefined ? "\u2013" : Number(value).toFixed(digits);
  }

  function barScale(highest) {
    var ends = [0.05, 0.1, 0.2, 0.25, 0.5];
    for (var i = 0; i < ends.length; i++) if (highest <= ends[i]) return ends[i];
    return 1;
  }

  function ordered(probabilities, names) {
    return names.slice().sort(function (a, b) {
      var pa = probabilities[a] || 0;
      var pb = probabilities[b] || 0;
      if (pa !== pb) return pb - pa;
      return a < b ? -1 : a > b ? 1 : 0;
    });
  }

  function chosenEstimator() {
    var estimators = state.board.estimators;
    for (var i = 0; i < estimators.length; i++) {
      if (estimators[i].key === state.estimator) return estimators[i];
    }
    for (var j = 0; j < estimators.length; j++) {
      if (estimators[j].key === state.board.recommended) return estimators[j];
    }
    return estimators[0];
  }

  /* --- the payload -> board mapping (mirrors presenters.leaderboard_board) ----------- */

  function boardFromPayload(payload) {
    var estimators = payload.estimators || {};
    var groupTest = null;
    var letters = {};
    ["nemenyi", "wilcoxon"].some(function (test) {
      var found = (payload[test] || {}).letters;
      if (found && Object.keys(found).length) {
        groupTest = GROUP_TESTS[test];
        letters = found;
        return true;
      }
      return false;
    });
    var borda = (estimators.borda || {}).p || {};
    var plackettLuce = (estimators.plackett_luce || {}).p || {};
    var winRate = payload.win_rate || {};
    var meanRank = payload.mean_rank || {};
    var significanceRank = payload.significance_rank || {};
    var notes = (payload.notes || []).slice();
    var reason = (payload.nemenyi || {}).not_applicable;
    if (reason) notes.push("Groups of algorithms that cannot be told apart are not shown: " + reason + ".");
    if (payload.mean_rank === null && payload.estimators) notes.push("Mean ranks need complete rankings, so they are not shown.");
    return {
      recommended: payload.recommended,
      best_predictor: (payload.evaluation || {}).best || null,
      estimators: ORDER.filter(function (key) {
        return key in estimators;
      }).map(function (key) {
        var entry = estimators[key];
        return {
          key: key,
          label: entry.label || key,
          description: DESCRIPTIONS[key] || "",
          p: entry.p || {},
          ci: entry.ci || null,
          p_best: entry.p_best || null
        };
      }),
      algorithms: ((payload.input || {}).algorithms || []).map(function (name) {
        return {
          name: name,
          win_rate: valueOf(winRate, name),
          mean_rank: valueOf(meanRank, name),
          significance_rank: valueOf(significanceRank, name),
          borda: valueOf(borda, name),
          plackett_luce: valueOf(plackettLuce, name),
          group: letters[name] || ""
        };
      }),
      has_mean_rank: Boolean(payload.mean_rank && Object.keys(payload.mean_rank).length),
      has_significance_rank: Boolean(payload.significance_rank && Object.keys(payload.significance_rank).length),
      group_test: groupTest,
      notes: notes,
      input: payload.input || {},
      friedman: friedmanSummary(payload)
    };
  }

  function valueOf(mapping, name) {
    return name in mapping ? mapping[name] : null;
  }

  function friedmanSummary(payload) {
    var friedman = payload.friedman || {};
    if (!Object.keys(friedman).length) return "";
    if (friedman.not_applicable) return "Friedman test: not applicable (" + friedman.not_applicable + ").";
    var alpha = (payload.params || {}).alpha || 0.05;
    var verdict = friedman.pvalue < alpha ? "differ" : "do not clearly differ";
    var f = friedman.iman_davenport === null || friedman.iman_davenport === undefined ? "inf" : friedman.iman_davenport.toFixed(2);
    return "Friedman test: the algorithms " + verdict + " (\u03c7\u00b2 = " + friedman.statistic.toFixed(2) +
      ", p = " + String(Number(friedman.pvalue.toPrecision(3))) + "; Iman\u2013Davenport F = " + f + ").";
  }

  /* --- rendering ---------------------------------------------------------------------- */

  function headerCell(text, testid, className, title) {
    var th = element("th", { scope: "col" }, text);
    if (testid) th.setAttribute("data-testid", testid);
    if (className) th.className = className;
    if (title) th.title = title;
    return th;
  }

  function cell(text, testid, className) {
    var td = element("td", testid ? { "data-testid": testid } : {}, text);
    if (className) td.className = className;
    return td;
  }

  function renderTable() {
    var board = state.board;
    var estimator = chosenEstimator();
    state.estimator = estimator.key;
    var p = estimator.p;
    var intervals = estimator.ci || {};
    var pBest = estimator.p_best || {};
    var names = board.algorithms.map(function (a) { return a.name; });
    var byName = {};
    board.algorithms.forEach(function (a) { byName[a.name] = a; });
    var highest = 0;
    names.forEach(function (name) {
      var high = Math.max(intervals[name] ? intervals[name][1] || 0 : 0, p[name] || 0);
      if (high > highest) highest = high;
    });
    var scale = barScale(highest);

    var newTable = element("table", {
      "class": "leaderboard",
      id: "leaderboard-table",
      "data-testid": "leaderboard-table",
      "data-estimator": estimator.key
    });
    var caption = element("caption", { id: "leaderboard-caption" });
    caption.appendChild(document.createTextNode("Probability that each algorithm wins a new dataset, by "));
    caption.appendChild(element("strong", {}, estimator.label));
    caption.appendChild(document.createTextNode(", with its 95 % bootstrap interval; most probable first."));
    newTable.appendChild(caption);

    var headRow = element("tr");
    headRow.appendChild(headerCell("#", null, "num"));
    headRow.appendChild(headerCell("Algorithm"));
    headRow.appendChild(headerCell("P(win)", "col-probability", "num"));
    var intervalHead = headerCell("95 % interval ", "col-interval", "interval");
    intervalHead.appendChild(element("span", { "class": "scale" }, "(bar: 0 to " + String(scale) + ")"));
    headRow.appendChild(intervalHead);
    headRow.appendChild(headerCell("P(best)", "col-p-best", "num", "Share of bootstrap replicates in which it has the highest probability"));
    headRow.appendChild(headerCell("Win rate", "col-win-rate", "num", "Share of datasets won (a shared win counts 1/t)"));
    if (board.has_mean_rank) headRow.appendChild(headerCell("Mean rank", "col-mean-rank", "num", "Average position over datasets (1 = best)"));
    if (board.has_significance_rank) {
      headRow.appendChild(headerCell("Signif. rank", "col-significance-rank", "num", "1 + number of algorithms significantly better within each dataset (Tukey on folds), averaged over datasets"));
    }
    headRow.appendChild(headerCell("Borda", "col-borda", "num", "Borda count as a probability"));
    headRow.appendChild(headerCell("Plackett\u2013Luce", "col-plackett-luce", "num", "Plackett\u2013Luce worth as a probability"));
    if (board.group_test) {
      headRow.appendChild(headerCell("Group (" + board.group_test + ")", "col-group", null,
        "Algorithms sharing a letter are not significantly different (" + board.group_test + ")"));
    }
    var thead = element("thead");
    thead.appendChild(headRow);
    newTable.appendChild(thead);

    var tbody = element("tbody");
    ordered(p, names).forEach(function (name, index) {
      var algorithm = byName[name];
      var row = element("tr", { "data-testid": "leaderboard-row", "data-algorithm": name });
      row.appendChild(cell(String(index + 1), null, "num"));
      var header = element("th", { scope: "row" });
      header.appendChild(element("a", { href: config.algorithmUrl.replace("{name}", encodeURIComponent(name)) }, name));
      row.appendChild(header);
      row.appendChild(cell(fixed(p[name], 3), "cell-probability", "num"));
      var intervalCell = cell(null, "cell-interval", "interval");
      var interval = intervals[name];
      if (interval && interval[0] !== null && interval[1] !== null) {
        var bar = element("span", { "class": "bar", "aria-hidden": "true" });
        var range = element("span", { "class": "range" });
        range.style.left = (interval[0] / scale * 100).toFixed(1) + "%";
        range.style.width = (Math.max(interval[1] - interval[0], 0) / scale * 100).toFixed(1) + "%";
        var point = element("span", { "class": "point" });
        point.style.left = (Math.min((p[name] || 0) / scale, 1) * 100).toFixed(1) + "%";
        bar.appendChild(range);
        bar.appendChild(point);
        intervalCell.appendChild(bar);
        intervalCell.appendChild(document.createTextNode(" "));
        intervalCell.appendChild(element("span", { "class": "ci" }, fixed(interval[0], 3) + "\u2013" + fixed(interval[1], 3)));
      } else {
        intervalCell.appendChild(element("span", { "class": "ci" }, "\u2013"));
      }
      row.appendChild(intervalCell);
      row.appendChild(cell(fixed(valueOf(pBest, name), 2), "cell-p-best", "num"));
      row.appendChild(cell(fixed(algorithm.win_rate, 3), "cell-win-rate", "num"));
      if (board.has_mean_rank) row.appendChild(cell(fixed(algorithm.mean_rank, 2), "cell-mean-rank", "num"));
      if (board.has_significance_rank) row.appendChild(cell(fixed(algorithm.significance_rank, 2), "cell-significance-rank", "num"));
      row.appendChild(cell(fixed(algorithm.borda, 3), "cell-borda", "num"));
      row.appendChild(cell(fixed(algorithm.plackett_luce, 3), "cell-plackett-luce", "num"));
      if (board.group_test) row.appendChild(cell(algorithm.group || "\u2013", "cell-group"));
      tbody.appendChild(row);
    });
    newTable.appendChild(tbody);

    var wrap = byId("leaderboard-table-wrap");
    wrap.replaceChildren(newTable);
    table = newTable;
  }

  function renderDescription() {
    var estimator = chosenEstimator();
    var paragraph = byId("estimator-description");
    if (!paragraph) return;
    paragraph.replaceChildren(element("strong", {}, estimator.label + ":"), document.createTextNode(" " + estimator.description));
  }

  function renderSwitcher() {
    var controls = byId("estimator-controls");
    var links = byId("estimator-links");
    if (!controls) return;
    var old = byId("estimator-switcher");
    if (old) old.remove();
    var fieldset = element("fieldset", { "class": "estimator-switcher", id: "estimator-switcher", "data-testid": "estimator-switcher" });
    fieldset.appendChild(element("legend", {}, "Win probability estimated by"));
    var choices = element("div", { "class": "choices" });
    state.board.estimators.forEach(function (estimator) {
      var label = element("label", { "data-testid": "estimator-option-" + estimator.key });
      var input = element("input", { type: "radio", name: "estimator-choice", value: estimator.key, "data-testid": "estimator-radio-" + estimator.key });
      input.checked = estimator.key === state.estimator;
      input.addEventListener("change", function () {
        if (input.checked) chooseEstimator(estimator.key);
      });
      label.appendChild(input);
      label.appendChild(document.createTextNode(estimator.label));
      if (estimator.key === state.board.recommended) {
        label.appendChild(document.createTextNode(" "));
        label.appendChild(element("span", { "class": "tag" }, "default"));
      }
      if (estimator.key === state.board.best_predictor) {
        label.appendChild(document.createTextNode(" "));
        label.appendChild(element("span", { "class": "tag best" }, "predicts best here"));
      }
      choices.appendChild(label);
    });
    fieldset.appendChild(choices);
    controls.insertBefore(fieldset, byId("estimator-description"));
    if (links) links.hidden = true;
  }

  function exportUrl(format) {
    var url = config.exportUrl.replace("{version}", String(state.version)).replace("{format}", format);
    if (format === "tex") url += (url.indexOf("?") === -1 ? "?" : "&") + "estimator=" + encodeURIComponent(state.estimator);
    return url;
  }

  function renderMeta() {
    var permalink = config.versionUrl.replace("{version}", String(state.version));
    var absolute = new URL(permalink, window.location.href).href;
    setText("snapshot-version", state.version);
    setText("live-shown-version", state.version);
    var link = byId("permalink");
    if (link) {
      link.href = permalink;
      link.querySelectorAll(".permalink-version").forEach(function (span) { span.textContent = state.version; });
    }
    document.querySelectorAll(".citation-version").forEach(function (span) { span.textContent = state.version; });
    document.querySelectorAll(".citation-link").forEach(function (a) {
      a.href = permalink;
      a.textContent = absolute;
    });
    ["csv", "json", "tex"].forEach(function (format) {
      var a = byId("export-" + format);
      if (a) a.href = exportUrl(format);
    });
    var input = state.board.input;
    if (input) setText("snapshot-coverage", input.n_datasets_used + " of " + input.n_datasets + " datasets used");
    if (state.board.friedman !== undefined) setText("friedman-summary", state.board.friedman);
    renderUpdated();
  }

  function renderNotes() {
    var holder = byId("leaderboard-notes");
    if (!holder) return;
    if (!state.board.notes.length) {
      holder.replaceChildren();
      return;
    }
    var list = element("ul", { "class": "notes" });
    state.board.notes.forEach(function (note) { list.appendChild(element("li", { "class": "note" }, note)); });
    holder.replaceChildren(list);
  }

  function setText(id, text) {
    var node = byId(id);
    if (node) node.textContent = text;
  }

  function ago(seconds) {
    if (seconds < 60) return Math.max(0, Math.round(seconds)) + " s ago";
    if (seconds < 3600) return Math.round(seconds / 60) + " min ago";
    if (seconds < 86400) return Math.round(seconds / 3600) + " h ago";
    return Math.round(seconds / 86400) + " days ago";
  }

  function renderUpdated() {
    var holder = byId("snapshot-updated");
    if (!config.live || !holder || !state.finishedAt) return;
    var time = element("time", { id: "snapshot-time", datetime: state.finishedAt.toISOString() }, ago((Date.now() - state.finishedAt.getTime()) / 1000));
    time.title = state.finishedAt.toISOString().replace("T", " ").slice(0, 19) + " UTC";
    holder.replaceChildren(document.createTextNode("updated "), time);
  }

  function chooseEstimator(key) {
    state.estimator = key;
    renderTable();
    renderDescription();
    var tex = byId("export-tex");
    if (tex) tex.href = exportUrl("tex");
    var url = new URL(window.location.href);
    url.searchParams.set("estimator", key);
    window.history.replaceState(null, "", url);
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
    if (shown) shown.hidden = state.version === null || state.version === undefined;
    box.hidden = false;
  }

  function applySnapshot(snapshot) {
    if (!snapshot.payload) return;
    var first = state.board === null;
    state.board = boardFromPayload(snapshot.payload);
    state.version = snapshot.version;
    state.finishedAt = snapshot.finished_at ? new Date(snapshot.finished_at) : null;
    var section = byId("leaderboard");
    if (section) section.hidden = false;
    var empty = byId("no-results");
    if (empty) empty.hidden = true;
    renderTable();
    renderDescription();
    renderSwitcher();
    renderNotes();
    renderMeta();
    setText("live-announcement", (first ? "Results version " : "Updated to results version ") + snapshot.version + ".");
  }

  function getJson(url) {
    return fetch(url, { headers: { Accept: "application/json" }, credentials: "same-origin" }).then(function (response) {
      if (!response.ok) {
        var error = new Error("HTTP " + response.status);
        error.retryAfter = Number(response.headers.get("Retry-After")) || 0;
        throw error;
      }
      return response.json();
    });
  }

  function poll() {
    state.timer = null;
    getJson(config.historyUrl).then(function (page) {
      var versions = page.results || [];
      var shown = state.version || 0;
      var computing = null;
      var newerReady = false;
      versions.forEach(function (v) {
        if (v.status === "computing" && v.version > shown && (!computing || v.version > computing.version)) computing = v;
        if (v.status === "ready" && v.version > shown) newerReady = true;
      });
      var allNewer = versions.length > 0 && versions.every(function (v) { return v.version > shown; });
      showComputing(computing);
      if (newerReady || (allNewer && page.next)) {
        return getJson(config.latestUrl).then(function (latest) {
          if (latest.version > shown) applySnapshot(latest);
          showComputing(latest.computing && latest.computing.version > state.version ? latest.computing : null);
        });
      }
      return null;
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

  if (state.board) {
    renderSwitcher();
    renderDescription();
  }

  if (config.live) {
    renderUpdated();
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

/*! Concierge chat widget. Embed with one tag:
 *   <script src="https://YOUR-CONCIERGE-HOST/widget.js" data-bot-key="bk_..." async></script>
 *
 * Plain ES2017, no dependencies, no build step. Rules this file keeps:
 * - Everything the server or the visitor supplies (bot name, greeting, offline
 *   message, replies, sources, visitor text) is data: it reaches the page only
 *   through textContent, DOM attributes, or http(s)-checked link targets. No
 *   innerHTML, insertAdjacentHTML, document.write, eval or new Function.
 * - Nothing throws into the host page: handlers are wrapped, promises caught.
 * - One global, window.ConciergeWidget, which also prevents a second start.
 */
(function () {
  'use strict';

  var NS = 'ConciergeWidget';
  if (window[NS]) return;

  var noop = function () {};
  function warn(msg) {
    try { console.warn('[concierge] ' + msg); } catch (_) { /* no console */ }
  }
  function report(e) { warn(String((e && e.message) || e)); }
  // safe wraps a handler so that neither a throw nor a rejected promise
  // escapes into the host page.
  function safe(fn) {
    return function () {
      try {
        var r = fn.apply(this, arguments);
        if (r && typeof r.catch === 'function') r.catch(report);
        return r;
      } catch (e) { report(e); }
    };
  }

  var KEY_RE = /^[A-Za-z0-9_-]{4,64}$/;
  var COLOR_RE = /^#[0-9A-Fa-f]{6}$/;
  var FONT_RE = /^[A-Za-z0-9 ,'-]{1,100}$/;
  var META = 'METADATA: ';
  var FINAL = '\nFINAL_METADATA: ';
  var MAX_INPUT = 4000;
  var STREAM_IDLE_MS = 60000;
  var REQUEST_MS = 15000;

  var T = {
    open: 'Open chat',
    close: 'Close chat',
    title: 'Chat',
    placeholder: 'Type your question…',
    message: 'Your message',
    send: 'Send',
    sources: 'Sources',
    rate: 'Rate this answer',
    up: 'Helpful',
    down: 'Not helpful',
    brand: 'Powered by Concierge',
    unavailable: 'This assistant is unavailable right now. Please try again later.',
    slow: 'You are sending messages too quickly. Please wait a moment and try again.',
    forbidden: 'This chat is not available on this website.',
    invalid: 'That message could not be sent. Please shorten it and try again.',
    network: 'We could not reach the assistant. Please check your connection and try again.',
    server: 'Something went wrong on our side. Please try again in a moment.',
    interrupted: 'The answer was interrupted. Please try again.',
    unreachable: 'Chat is unavailable right now. Please try again later.',
    human: 'Talk to a person',
    first: 'Please write your question first, then ask for a person.',
    name: 'Your name',
    email: 'Your e-mail',
    prechat: 'Before we start, how can we reach you?',
    start: 'Start chat',
    waiting: 'We are connecting you with a person…',
    joined: 'A person has joined the conversation.',
    typing: 'Typing…',
    back: 'You are talking with the assistant again.',
    closed: 'The conversation was closed. Thank you!'
  };

  function findScript() {
    var cur = document.currentScript;
    if (cur && cur.src && cur.hasAttribute('data-bot-key')) return cur;
    var all = document.querySelectorAll('script[src][data-bot-key]');
    for (var i = all.length - 1; i >= 0; i--) {
      try {
        if (/\/widget\.js$/.test(new URL(all[i].src, location.href).pathname)) return all[i];
      } catch (_) { /* unparsable src */ }
    }
    return null;
  }

  // httpURL returns the normalised URL when s is an absolute http(s) URL
  // (https only when httpsOnly), else null. The only way data becomes a link
  // or an image source.
  function httpURL(s, httpsOnly) {
    if (typeof s !== 'string' || !s) return null;
    try {
      var u = new URL(s);
      if (u.protocol === 'https:' || (!httpsOnly && u.protocol === 'http:')) return u.href;
    } catch (_) { /* not a URL */ }
    return null;
  }

  function str(v, max) {
    return typeof v === 'string' ? v.slice(0, max || 10000) : '';
  }

  function parseJSON(s) {
    try { return JSON.parse(s); } catch (_) { return null; }
  }

  function storage(kind) {
    try { return window[kind] || null; } catch (_) { return null; } // blocked in some sandboxes
  }
  function sget(kind, k) {
    try { var s = storage(kind); return s ? s.getItem(k) : null; } catch (_) { return null; }
  }
  function sset(kind, k, v) {
    try {
      var s = storage(kind);
      if (!s) return;
      if (v == null) s.removeItem(k); else s.setItem(k, v);
    } catch (_) { /* full or blocked */ }
  }

  // cleanURL keeps what describes the page (origin, path, utm_* campaign
  // parameters) and drops the rest of the query and the fragment, which can
  // hold tokens.
  function cleanURL(s) {
    try {
      var u = new URL(s);
      if (u.protocol !== 'http:' && u.protocol !== 'https:') return '';
      var q = new URLSearchParams();
      u.searchParams.forEach(function (v, k) { if (/^utm_/i.test(k)) q.append(k, v); });
      u.search = q.toString();
      u.hash = '';
      u.username = '';
      u.password = '';
      return u.href.slice(0, 2048);
    } catch (_) { return ''; }
  }

  // onColor picks readable text for a background colour.
  function onColor(hex) {
    var n = parseInt(hex.slice(1), 16);
    var l = 0.299 * ((n >> 16) & 255) + 0.587 * ((n >> 8) & 255) + 0.114 * (n & 255);
    return l > 165 ? '#111827' : '#ffffff';
  }

  // unescapeText removes the one backslash the server puts in front of a
  // reply line that starts with METADATA:, FINAL_METADATA: or a backslash.
  function unescapeText(s) { return s.replace(/(^|\n)\\/g, '$1'); }

  // Stream reads the body of POST /chat/stream:
  //   METADATA: {json}\n <reply text in chunks> \nFINAL_METADATA: {json}\n
  function Stream() {
    this.head = '';
    this.raw = '';
    this.meta = null;
    this.bad = false;
  }
  Stream.prototype.push = function (s) {
    if (this.bad) return;
    if (!this.meta) {
      this.head += s;
      var i = this.head.indexOf('\n');
      if (i < 0) {
        if (this.head.length > 65536 || (this.head.length >= META.length && this.head.indexOf(META) !== 0)) this.bad = true;
        return;
      }
      var line = this.head.slice(0, i);
      this.meta = line.indexOf(META) === 0 ? parseJSON(line.slice(META.length)) : null;
      if (!this.meta || typeof this.meta !== 'object') { this.bad = true; return; }
      s = this.head.slice(i + 1);
      this.head = '';
    }
    this.raw += s;
  };
  // text is the reply so far. While the stream runs, a trailing partial line
  // that could still turn into the final marker is held back.
  Stream.prototype.text = function (done) {
    var r = this.raw;
    var k = r.indexOf(FINAL);
    if (k >= 0) {
      r = r.slice(0, k);
    } else if (!done) {
      var n = r.lastIndexOf('\n');
      if (n >= 0 && FINAL.indexOf(r.slice(n)) === 0) r = r.slice(0, n);
    }
    return unescapeText(r);
  };
  Stream.prototype.final = function () {
    var k = this.raw.indexOf(FINAL);
    if (k < 0) return null;
    var t = this.raw.slice(k + FINAL.length);
    var n = t.indexOf('\n');
    var v = parseJSON(n >= 0 ? t.slice(0, n) : t);
    return v && typeof v === 'object' ? v : null;
  };

  var CSS = [
    '.r{--p:#2563eb;--on:#fff;--bg:#fff;--fg:#111827;--mu:#6b7280;--bd:#e5e7eb;--bb:#f3f4f6;--er:#b91c1c;--eb:#fef2f2;',
    'font:14px/1.45 var(--f,system-ui,-apple-system,"Segoe UI",Roboto,Helvetica,Arial,sans-serif);color:var(--fg);color-scheme:light}',
    '.r.dark{--bg:#111827;--fg:#f9fafb;--mu:#9ca3af;--bd:#374151;--bb:#1f2937;--er:#fecaca;--eb:#450a0a;color-scheme:dark}',
    '@media (prefers-color-scheme:dark){.r.auto{--bg:#111827;--fg:#f9fafb;--mu:#9ca3af;--bd:#374151;--bb:#1f2937;--er:#fecaca;--eb:#450a0a;color-scheme:dark}}',
    '*{box-sizing:border-box}',
    '[hidden]{display:none!important}',
    'button{font:inherit;color:inherit;cursor:pointer;border:0;background:none;padding:0;margin:0}',
    'button:disabled{cursor:default;opacity:.5}',
    'svg{width:20px;height:20px;fill:none;stroke:currentColor;stroke-width:2;stroke-linecap:round;stroke-linejoin:round;flex:none}',
    ':focus{outline:none}',
    ':focus-visible{outline:2px solid var(--p);outline-offset:2px}',
    '.l{position:fixed;z-index:2147483000;bottom:20px;right:20px;min-width:56px;height:56px;padding:0 16px;border-radius:28px;',
    'display:flex;align-items:center;justify-content:center;gap:8px;background:var(--p);color:var(--on);',
    'box-shadow:0 4px 14px rgba(0,0,0,.25);font-weight:600}',
    '.l svg{width:26px;height:26px}',
    '.l:focus-visible{outline:3px solid var(--fg);outline-offset:3px}',
    '.left .l{right:auto;left:20px}',
    '@media (max-width:480px){.open .l{display:none}}',
    '.p{position:fixed;z-index:2147483000;bottom:88px;right:20px;width:380px;max-width:calc(100vw - 40px);',
    'height:580px;max-height:calc(100vh - 108px);display:flex;flex-direction:column;overflow:hidden;',
    'background:var(--bg);color:var(--fg);border:1px solid var(--bd);border-radius:14px;box-shadow:0 12px 40px rgba(0,0,0,.25)}',
    '.left .p{right:auto;left:20px}',
    '@media (max-width:480px){.p{inset:0;width:auto;height:auto;max-width:none;max-height:none;border-radius:0;border:0}}',
    '.h{display:flex;align-items:center;gap:10px;padding:12px 14px;background:var(--p);color:var(--on)}',
    '.h img{width:34px;height:34px;border-radius:50%;object-fit:cover;background:var(--bg)}',
    '.h .t{flex:1;min-width:0}',
    '.h .n{font-weight:600;font-size:15px;overflow:hidden;text-overflow:ellipsis;white-space:nowrap}',
    '.h .s{font-size:12px;opacity:.85}',
    '.h button{width:32px;height:32px;border-radius:8px;display:flex;align-items:center;justify-content:center}',
    '.h button:focus-visible{outline-color:var(--on)}',
    '.g{flex:1;overflow-y:auto;padding:14px;display:flex;flex-direction:column;gap:10px}',
    '.m{max-width:85%;display:flex;flex-direction:column;gap:4px;align-self:flex-start}',
    '.m.u{align-self:flex-end}',
    '.b{padding:8px 12px;border-radius:14px;background:var(--bb);white-space:pre-wrap;overflow-wrap:anywhere;word-break:break-word}',
    '.u .b{background:var(--a,var(--p));color:var(--ona,var(--on))}',
    '.e .b{background:var(--eb);color:var(--er)}',
    '.w .b:empty::after{content:"…";opacity:.6}',
    '.off{margin:auto 0;text-align:center;color:var(--mu);white-space:pre-wrap;overflow-wrap:anywhere}',
    '.x{font-size:12px;color:var(--mu);display:flex;flex-direction:column;gap:2px}',
    '.x ul{margin:0;padding:0 0 0 16px}',
    '.x a{color:var(--p);overflow-wrap:anywhere}',
    '.dark .x a{color:var(--fg)}',
    '.v{display:flex;gap:4px}',
    '.v button{width:28px;height:28px;border-radius:6px;display:flex;align-items:center;justify-content:center;color:var(--mu)}',
    '.v svg{width:16px;height:16px}',
    '.v button:hover,.v button[aria-pressed=true]{color:var(--p);background:var(--bb)}',
    'form{display:flex;gap:8px;align-items:flex-end;padding:10px;border-top:1px solid var(--bd)}',
    'textarea{flex:1;resize:none;font:inherit;color:inherit;background:var(--bg);border:1px solid var(--bd);border-radius:10px;',
    'padding:8px 10px;min-height:40px;max-height:120px}',
    'textarea:focus-visible{outline:2px solid var(--p);outline-offset:0;border-color:var(--p)}',
    'form button{width:40px;height:40px;border-radius:10px;background:var(--p);color:var(--on);display:flex;align-items:center;justify-content:center}',
    '.z{font-size:11px;color:var(--mu);text-align:center;padding:0 0 8px}',
    '.k{margin:4px 12px 0;padding:6px 10px;border:1px solid var(--p);border-radius:8px;background:transparent;color:inherit;cursor:pointer;font:inherit}',
    '.m.o .b{border-left:3px solid var(--p)}',
    '.hf{display:flex;flex-wrap:wrap;gap:6px;padding:6px 0;border:0}',
    '.hf input{flex:1 1 120px;font:inherit;padding:6px;border:1px solid var(--bd);border-radius:8px}',
    '.hf button{width:auto;padding:0 10px}',
    '.pc p{flex:1 1 100%;margin:0}'
  ].join('\n');

  var ICONS = {
    chat: 'M21 15a2 2 0 0 1-2 2H7l-4 4V5a2 2 0 0 1 2-2h14a2 2 0 0 1 2 2z',
    help: 'M12 22a10 10 0 1 0 0-20 10 10 0 0 0 0 20zM9.1 9a3 3 0 0 1 5.8 1c0 2-3 3-3 3M12 17h.01',
    spark: 'M12 2l2.4 7.4H22l-6.2 4.5 2.4 7.4L12 16.8l-6.2 4.5 2.4-7.4L2 9.4h7.6z',
    close: 'M18 6 6 18M6 6l12 12',
    send: 'M22 2 11 13M22 2l-7 20-4-9-9-4z',
    up: 'M7 10v12M15 5.9 14 10h5.8a2 2 0 0 1 2 2.3l-1.4 8A2 2 0 0 1 18.4 22H4a2 2 0 0 1-2-2v-8a2 2 0 0 1 2-2h2.8a2 2 0 0 0 1.8-1.1L12 2a3.1 3.1 0 0 1 3 3.9z',
    down: 'M17 14V2M9 18.1 10 14H4.2a2 2 0 0 1-2-2.3l1.4-8A2 2 0 0 1 5.6 2H20a2 2 0 0 1 2 2v8a2 2 0 0 1-2 2h-2.8a2 2 0 0 0-1.8 1.1L12 22a3.1 3.1 0 0 1-3-3.9z'
  };

  function icon(name) {
    var ns = 'http://www.w3.org/2000/svg';
    var svg = document.createElementNS(ns, 'svg');
    svg.setAttribute('viewBox', '0 0 24 24');
    svg.setAttribute('aria-hidden', 'true');
    svg.setAttribute('focusable', 'false');
    var p = document.createElementNS(ns, 'path');
    p.setAttribute('d', ICONS[name]);
    svg.appendChild(p);
    return svg;
  }

  // el builds an element. props: class, text (textContent), on* listeners,
  // anything else an attribute. Never used for href or src.
  function el(tag, props, kids) {
    var e = document.createElement(tag);
    for (var k in props || {}) {
      var v = props[k];
      if (v == null || v === false) continue;
      if (k === 'text') e.textContent = v;
      else if (k === 'class') e.className = v;
      else if (k.slice(0, 2) === 'on') e.addEventListener(k.slice(2), safe(v));
      else e.setAttribute(k, v === true ? '' : String(v));
    }
    (kids || []).forEach(function (c) { if (c) e.appendChild(c); });
    return e;
  }

  var script = findScript();
  if (!script) return warn('cannot find the widget script tag');
  var botKey = script.getAttribute('data-bot-key') || '';
  if (!KEY_RE.test(botKey)) return warn('data-bot-key is missing or malformed');
  var base;
  try { base = new URL(script.src, location.href).origin; } catch (_) { return warn('bad script src'); }

  var SESSION = 'concierge:session:' + botKey;
  var OPENED = 'concierge:open:' + botKey;
  var st = {
    settings: null,
    loading: null,
    failed: false,
    session: null,
    history: false,
    busy: false,
    open: false,
    context: false,
    left: false,
    t0: Date.now()
  };
  var ui = {};

  var api = { version: '1', open: safe(function () { openPanel(true); }), close: safe(function () { closePanel(false); }) };
  try {
    Object.defineProperty(window, NS, { value: Object.freeze(api), enumerable: false, configurable: false, writable: false });
  } catch (_) { return; }

  function request(path, opts) {
    opts = opts || {};
    var headers = { 'X-Bot-Key': botKey };
    if (opts.body !== undefined) headers['Content-Type'] = 'application/json';
    if (opts.headers) for (var h in opts.headers) headers[h] = opts.headers[h];
    var init = {
      method: opts.method || 'GET',
      headers: headers,
      credentials: 'omit',
      mode: 'cors',
      cache: 'no-store'
    };
    if (opts.body !== undefined) init.body = JSON.stringify(opts.body);
    if (opts.keepalive) init.keepalive = true;
    if (opts.signal) init.signal = opts.signal;
    return fetch(base + path, init);
  }

  // timed runs a request that is aborted after ms.
  function timed(path, opts, ms) {
    var ctl = typeof AbortController === 'function' ? new AbortController() : null;
    var timer = ctl ? setTimeout(function () { ctl.abort(); }, ms || REQUEST_MS) : 0;
    opts = opts || {};
    if (ctl) opts.signal = ctl.signal;
    return request(path, opts).then(function (res) { clearTimeout(timer); return res; },
      function (e) { clearTimeout(timer); throw e; });
  }

  function errorText(res) {
    return res.json().catch(function () { return null; }).then(function (body) {
      switch (res.status) {
        case 402: return T.unavailable;
        case 403: return T.forbidden;
        case 401:
        case 404: return T.unavailable;
        case 413:
        case 422: return T.invalid;
        case 429: {
          var s = body && Number(body.retry_after_seconds);
          return s > 0 ? 'You are sending messages too quickly. Please wait ' + Math.ceil(s) +
            (Math.ceil(s) === 1 ? ' second' : ' seconds') + ' and try again.' : T.slow;
        }
      }
      return res.status >= 500 ? T.server : T.network;
    });
  }

  function setSession(id) {
    if (id != null && (typeof id !== 'string' || !id || id.length > 200)) return;
    var changed = id !== st.session;
    st.session = id;
    sset('localStorage', SESSION, id);
    if (changed && id) {
      st.context = false;
      sendContext();
    }
  }

  function sendContext() {
    if (!st.session || st.context || (st.settings && st.settings.is_offline)) return;
    st.context = true;
    signal({
      session_id: st.session,
      page_url: cleanURL(location.href),
      referrer: cleanURL(document.referrer),
      page_title: str(document.title, 300)
    }, false);
  }

  function signal(body, keepalive) {
    // The endpoint may not exist on every server version: any failure is
    // ignored.
    try { request('/chat/behavioral-signals', { method: 'POST', body: body, keepalive: keepalive }).catch(noop); } catch (_) { /* ignored */ }
  }

  function leave() {
    if (!st.session || st.left) return;
    st.left = true;
    signal({ session_id: st.session, time_on_page_seconds: Math.max(0, Math.round((Date.now() - st.t0) / 1000)) }, true);
  }

  function loadSettings() {
    if (st.settings) return Promise.resolve(st.settings);
    if (st.loading) return st.loading;
    st.loading = timed('/bots/settings/public').then(function (res) {
      if (!res.ok) throw new Error('settings: HTTP ' + res.status);
      return res.json();
    }).then(function (s) {
      if (!s || typeof s !== 'object') throw new Error('settings: not an object');
      st.settings = s;
      st.failed = false;
      applySettings(s);
      return s;
    }).catch(function (e) {
      st.failed = true;
      renderUnavailable();
      throw e;
    }).then(function (s) {
      st.loading = null;
      return s;
    }, function (e) {
      st.loading = null;
      throw e;
    });
    return st.loading;
  }

  function build() {
    var host = el('div', { 'data-concierge-widget': '' });
    // Inline declarations through the CSSOM: they beat any page style on
    // the host and are not subject to a page's style-src policy.
    host.style.setProperty('all', 'initial', 'important');
    host.style.setProperty('display', 'block', 'important');
    var root = host.attachShadow({ mode: 'open' });
    var sheetDone = false;
    try {
      if ('adoptedStyleSheets' in Document.prototype && 'replaceSync' in CSSStyleSheet.prototype) {
        var sheet = new CSSStyleSheet();
        sheet.replaceSync(CSS);
        root.adoptedStyleSheets = [sheet];
        sheetDone = true;
      }
    } catch (_) { /* older browser */ }
    if (!sheetDone) root.appendChild(el('style', { text: CSS }));

    ui.root = el('div', { class: 'r', onkeydown: onKey });
    ui.launcher = el('button', { type: 'button', class: 'l', 'aria-label': T.open, 'aria-expanded': 'false',
      'aria-haspopup': 'dialog', hidden: true, onclick: function () { if (st.open) closePanel(true); else openPanel(true); } });
    ui.name = el('div', { class: 'n', text: T.title });
    ui.sub = el('div', { class: 's', hidden: true });
    ui.avatar = el('img', { alt: '', hidden: true, referrerpolicy: 'no-referrer' });
    ui.closeBtn = el('button', { type: 'button', 'aria-label': T.close, onclick: function () { closePanel(true); } }, [icon('close')]);
    ui.log = el('div', { class: 'g', role: 'log', 'aria-live': 'polite', 'aria-label': T.title });
    ui.input = el('textarea', { rows: 1, maxlength: MAX_INPUT, 'aria-label': T.message, placeholder: T.placeholder, onkeydown: onInputKey });
    ui.send = el('button', { type: 'submit', 'aria-label': T.send }, [icon('send')]);
    ui.form = el('form', { hidden: true, onsubmit: onSubmit }, [ui.input, ui.send]);
    ui.talk = el('button', { type: 'button', class: 'k', text: T.human, hidden: true, onclick: safe(handoff) });
    ui.brand = el('div', { class: 'z', text: T.brand, hidden: true });
    ui.panel = el('div', { class: 'p', role: 'dialog', 'aria-label': T.title, hidden: true }, [
      el('div', { class: 'h' }, [ui.avatar, el('div', { class: 't' }, [ui.name, ui.sub]), ui.closeBtn]),
      ui.log, ui.talk, ui.form, ui.brand
    ]);
    ui.root.appendChild(ui.panel);
    ui.root.appendChild(ui.launcher);
    root.appendChild(ui.root);
    ui.host = host;
    document.body.appendChild(host);
  }

  function setLauncherIcon() {
    var s = st.settings || {};
    var a = s.appearance || {};
    var c = s.copy || {};
    while (ui.launcher.firstChild) ui.launcher.removeChild(ui.launcher.firstChild);
    if (st.open) {
      ui.launcher.appendChild(icon('close'));
      ui.launcher.setAttribute('aria-label', T.close);
      return;
    }
    var label = str(c.launcher_label, 50);
    var name = ['chat', 'help', 'spark'].indexOf(a.launcher_icon) >= 0 ? a.launcher_icon : 'chat';
    if (a.launcher_icon !== 'none' || !label) ui.launcher.appendChild(icon(name));
    if (a.launcher_icon === 'none' && label) ui.launcher.appendChild(el('span', { text: label }));
    ui.launcher.setAttribute('aria-label', label || T.open);
  }

  function applySettings(s) {
    var a = s.appearance && typeof s.appearance === 'object' ? s.appearance : {};
    var c = s.copy && typeof s.copy === 'object' ? s.copy : {};
    var r = ui.root;
    if (COLOR_RE.test(a.primary_color)) {
      r.style.setProperty('--p', a.primary_color);
      r.style.setProperty('--on', onColor(a.primary_color));
    }
    if (COLOR_RE.test(a.accent_color)) {
      r.style.setProperty('--a', a.accent_color);
      r.style.setProperty('--ona', onColor(a.accent_color));
    }
    if (FONT_RE.test(a.font_family || '')) r.style.setProperty('--f', a.font_family + ',system-ui,sans-serif');
    r.classList.toggle('dark', a.theme === 'dark');
    r.classList.toggle('auto', a.theme === 'auto');
    r.classList.toggle('left', a.position === 'bottom-left');

    var title = str(c.title, 100) || str(s.name, 100) || T.title;
    ui.name.textContent = title;
    ui.panel.setAttribute('aria-label', title);
    ui.log.setAttribute('aria-label', title);
    var name = str(s.name, 100);
    var sub = str(c.subtitle, 200) || (name !== title ? name : '');
    ui.sub.textContent = sub;
    ui.sub.hidden = !sub;
    var img = httpURL(a.avatar_url, true) || httpURL(a.logo_url, true);
    if (img) ui.avatar.src = img;
    ui.avatar.hidden = !img;
    ui.brand.hidden = a.show_branding === false;
    var ph = str(c.input_placeholder, 100);
    if (ph) ui.input.setAttribute('placeholder', ph);

    clear(ui.log);
    ui.mark = null;
    if (s.is_offline) {
      // Spec: while offline a visitor gets the offline message and nothing
      // else, so there is no input either.
      ui.form.hidden = true;
      ui.log.appendChild(el('p', { class: 'off', text: str(s.offline_message, 2000) }));
    } else {
      ui.form.hidden = false;
      var greeting = str(s.greeting, 2000);
      if (greeting) ui.log.appendChild(bubble('a', greeting).row);
      ui.mark = el('div', { hidden: true });
      ui.log.appendChild(ui.mark);
    }
    var lc = s.live_chat && typeof s.live_chat === 'object' ? s.live_chat : {};
    ui.talk.hidden = !!s.is_offline || lc.available !== true;
    if (!s.is_offline && lc.pre_chat_form === true && !st.session) preChat(str(c.pre_chat_heading, 200));
    setLauncherIcon();
    ui.launcher.hidden = false;
    if (st.session) sendContext();
    if (st.open) afterOpen(false);
  }

  function renderUnavailable() {
    clear(ui.log);
    ui.mark = null;
    ui.form.hidden = true;
    ui.log.appendChild(el('p', { class: 'off', text: T.unreachable }));
    setLauncherIcon();
    ui.launcher.hidden = false;
  }

  function clear(node) { while (node.firstChild) node.removeChild(node.firstChild); }

  // bubble makes one message row: role 'u' (visitor), 'a' (assistant) or
  // 'e' (an error notice).
  function bubble(role, text) {
    var b = el('div', { class: 'b', text: text || '' });
    var row = el('div', { class: 'm ' + role }, [b]);
    return { row: row, b: b };
  }

  function addRow(row) {
    var stick = ui.log.scrollHeight - ui.log.scrollTop - ui.log.clientHeight < 60;
    ui.log.appendChild(row);
    if (stick) scrollDown();
  }

  function scrollDown() { ui.log.scrollTop = ui.log.scrollHeight; }

  function notice(text) {
    var m = bubble('e', text);
    addRow(m.row);
    return m;
  }

  function sourcesBlock(list) {
    if (!Array.isArray(list) || !list.length) return null;
    var seen = {};
    var ul = el('ul');
    list.slice(0, 10).forEach(function (s) {
      if (!s || typeof s !== 'object') return;
      var href = httpURL(s.url, false);
      var title = str(s.title, 300) || str(s.document_name, 300) || (href || '');
      if (!title) return;
      var id = (href || '') + '\u0000' + title;
      if (seen[id]) return;
      seen[id] = true;
      var item;
      if (href) {
        item = el('a', { target: '_blank', rel: 'noopener noreferrer', text: title });
        item.href = href;
      } else {
        item = el('span', { text: title });
      }
      ul.appendChild(el('li', null, [item]));
    });
    if (!ul.firstChild) return null;
    return el('div', { class: 'x' }, [el('span', { text: T.sources }), ul]);
  }

  function votes(messageID, rating) {
    if (typeof messageID !== 'string' || !messageID) return null;
    var buttons = [];
    function vote(rating, btn) {
      if (!st.session) return;
      var was = buttons.map(function (b) { return b.getAttribute('aria-pressed'); });
      buttons.forEach(function (b) { b.setAttribute('aria-pressed', String(b === btn)); });
      timed('/chat/feedback', { method: 'POST', body: { session_id: st.session, message_id: messageID, rating: rating } })
        .then(function (res) { if (!res.ok) throw new Error('feedback: HTTP ' + res.status); })
        .catch(function () { buttons.forEach(function (b, i) { b.setAttribute('aria-pressed', was[i]); }); });
    }
    ['up', 'down'].forEach(function (r) {
      var b = el('button', { type: 'button', 'aria-label': T[r], title: T[r], 'aria-pressed': String(r === rating),
        onclick: function () { vote(r, b); } }, [icon(r)]);
      buttons.push(b);
    });
    return el('div', { class: 'v', role: 'group', 'aria-label': T.rate }, buttons);
  }

  // finish adds sources and rating buttons under an assistant message.
  function finish(m, sources, messageID, rating) {
    var x = sourcesBlock(sources);
    if (x) m.row.appendChild(x);
    var v = votes(messageID, rating);
    if (v) m.row.appendChild(v);
  }

  function loadHistory() {
    if (st.history || !st.session || !ui.mark) return;
    st.history = true;
    var session = st.session;
    timed('/chat/history/' + encodeURIComponent(session)).then(function (res) {
      if (res.status === 404) {
        if (st.session === session) setSession(null);
        return null;
      }
      if (!res.ok) throw new Error('history: HTTP ' + res.status);
      return res.json();
    }).then(function (h) {
      if (!h || !Array.isArray(h.messages) || !ui.mark || st.session !== session) return;
      var frag = document.createDocumentFragment();
      h.messages.forEach(function (msg) {
        if (!msg || typeof msg !== 'object') return;
        var text = str(msg.text, 100000);
        if (msg.role === 'user') {
          frag.appendChild(bubble('u', text).row);
        } else if (msg.role === 'assistant') {
          var m = bubble('a', text);
          finish(m, msg.sources, msg.message_id, msg.rating);
          frag.appendChild(m.row);
        }
      });
      ui.log.insertBefore(frag, ui.mark);
      scrollDown();
    }).catch(function (e) {
      st.history = false; // try again at the next open
      report(e);
    });
  }

  function openPanel(focus) {
    if (!ui.panel) return;
    if (!st.open) {
      st.open = true;
      ui.panel.hidden = false;
      ui.root.classList.add('open');
      ui.launcher.setAttribute('aria-expanded', 'true');
      setLauncherIcon();
      sset('sessionStorage', OPENED, '1');
    }
    if (st.failed && !st.loading) loadSettings().catch(noop);
    afterOpen(focus);
  }

  function afterOpen(focus) {
    if (st.settings && !st.settings.is_offline) loadHistory();
    scrollDown();
    if (focus) (ui.form.hidden ? ui.closeBtn : ui.input).focus();
  }

  function closePanel(focusLauncher) {
    if (!st.open) return;
    st.open = false;
    ui.panel.hidden = true;
    ui.root.classList.remove('open');
    ui.launcher.setAttribute('aria-expanded', 'false');
    setLauncherIcon();
    sset('sessionStorage', OPENED, null);
    if (focusLauncher) ui.launcher.focus();
  }

  function onKey(e) {
    if (e.key === 'Escape' && st.open) {
      e.stopPropagation();
      closePanel(true);
    }
  }

  function onInputKey(e) {
    if (e.key === 'Enter' && !e.shiftKey && !e.isComposing && e.keyCode !== 229) {
      e.preventDefault();
      submit();
    }
  }

  function onSubmit(e) {
    e.preventDefault();
    submit();
  }

  function submit() {
    var text = ui.input.value.trim();
    if (!text || st.busy || !st.settings || st.settings.is_offline) return;
    ui.input.value = '';
    ask(text.slice(0, MAX_INPUT), true).catch(report);
  }

  function setBusy(on) {
    st.busy = on;
    ui.send.disabled = on;
    if (on) ui.log.setAttribute('aria-busy', 'true'); else ui.log.removeAttribute('aria-busy');
  }

  function ask(text, first) {
    if (first) addRow(bubble('u', text).row);
    setBusy(true);
    var m = bubble('a', '');
    m.row.classList.add('w');
    addRow(m.row);
    var ctl = typeof AbortController === 'function' ? new AbortController() : null;
    var idle = 0;
    function arm() {
      clearTimeout(idle);
      if (ctl) idle = setTimeout(function () { ctl.abort(); }, STREAM_IDLE_MS);
    }
    arm();
    var body = { message: text };
    var sent = st.session;
    if (sent) body.session_id = sent;
    var stream = new Stream();
    var finished = false;
    var frame = false;
    var show = function (done) {
      if (done) finished = true;
      m.b.textContent = stream.text(done);
      if (ui.log.scrollHeight - ui.log.scrollTop - ui.log.clientHeight < 120) scrollDown();
    };
    // Chunks can come faster than frames: draw at most once a frame.
    var draw = function () {
      if (typeof requestAnimationFrame !== 'function') return show(false);
      if (frame) return;
      frame = true;
      requestAnimationFrame(function () {
        frame = false;
        if (!finished) show(false);
      });
    };
    var retry = false;
    return request('/chat/stream', { method: 'POST', body: body, signal: ctl ? ctl.signal : undefined }).then(function (res) {
      if (!res.ok) {
        if (res.status === 404 && sent && first) {
          // The stored conversation is gone: start a fresh one.
          setSession(null);
          retry = true;
          return null;
        }
        return errorText(res).then(function (msg) { throw { friendly: msg }; });
      }
      var seen = false;
      var feed = function (s) {
        stream.push(s);
        if (stream.bad) throw { friendly: T.server };
        if (stream.meta && !seen) {
          seen = true;
          if (typeof stream.meta.session_id === 'string') setSession(stream.meta.session_id);
        }
        draw();
      };
      if (!res.body || typeof res.body.getReader !== 'function' || typeof TextDecoder !== 'function') {
        return res.text().then(function (t) { feed(t); });
      }
      var reader = res.body.getReader();
      var dec = new TextDecoder();
      var pump = function () {
        return reader.read().then(function (r) {
          arm();
          if (r.done) {
            feed(dec.decode());
            return null;
          }
          feed(dec.decode(r.value, { stream: true }));
          return pump();
        });
      };
      return pump();
    }).then(function () {
      if (retry) return;
      if (!stream.meta) throw { friendly: T.server };
      var fin = stream.final();
      show(true);
      m.row.classList.remove('w');
      if (!fin) {
        if (!m.b.textContent) m.row.parentNode.removeChild(m.row);
        notice(T.interrupted);
        return;
      }
      if (typeof fin.session_id === 'string') setSession(fin.session_id);
      if (fin.error) {
        if (!m.b.textContent) m.row.parentNode.removeChild(m.row);
        notice(T.interrupted);
        return;
      }
      if (fin.mode === 'waiting' || fin.mode === 'human') {
        // The message went to a person: their answer comes as an event.
        if (m.row.parentNode) m.row.parentNode.removeChild(m.row);
        live();
        return;
      }
      finish(m, fin.sources, fin.message_id);
      scrollDown();
    }).catch(function (e) {
      if (ctl) ctl.abort();
      m.row.classList.remove('w');
      finished = true;
      if (stream.meta && stream.text(true)) show(true); else if (m.row.parentNode) m.row.parentNode.removeChild(m.row);
      notice((e && e.friendly) || T.network);
      if (!(e && e.friendly)) report(e);
    }).then(function () {
      clearTimeout(idle);
      setBusy(false);
      if (retry) {
        if (m.row.parentNode) m.row.parentNode.removeChild(m.row);
        return ask(text, false);
      }
    });
  }

  // Live chat: ask for a person, then follow the conversation's events
  // (operator messages, typing, mode changes) with Last-Event-ID resumes.
  // handoff shows the hand-off form (name, e-mail: stored as a lead), then
  // asks for a person.
  function handoff() {
    if (!st.session) { notice(T.first); return; }
    if (ui.hf) { ui.hf.querySelector('input').focus(); return; }
    var name = el('input', { type: 'text', maxlength: 100, autocomplete: 'name', 'aria-label': T.name, placeholder: T.name });
    var mail = el('input', { type: 'email', maxlength: 254, autocomplete: 'email', 'aria-label': T.email, placeholder: T.email });
    var go = el('button', { type: 'submit', text: T.human });
    ui.hf = el('form', { class: 'hf', onsubmit: safe(function (ev) {
      ev.preventDefault();
      var who = { session_id: st.session, name: name.value.trim().slice(0, 100), email: mail.value.trim().slice(0, 254) };
      ui.hf.parentNode.removeChild(ui.hf);
      ui.hf = null;
      var lead = who.name || who.email ? request('/chat/lead-capture', { method: 'POST',
        body: { session_id: who.session_id, name: who.name || undefined, email: who.email || undefined, source: 'handoff' } }).catch(noop) : Promise.resolve();
      ui.talk.disabled = true;
      lead.then(function () {
        return request('/operators/handoff', { method: 'POST', body: who });
      }).then(function (res) {
        return res.ok ? res.json() : errorText(res).then(function (msg) { throw { friendly: msg }; });
      }).then(function (h) {
        if (h.status === 'waiting' || h.status === 'human') { notice(T.waiting); live(); } else notice(str(h.away_message, 500) || T.unavailable);
      }).catch(function (e) { notice((e && e.friendly) || T.network); }).then(function () { ui.talk.disabled = false; });
    }) }, [name, mail, go]);
    addRow(ui.hf);
    name.focus();
  }

  // preChat asks for a name and e-mail before the first message when the
  // bot's settings say so: the lead starts the conversation, and the
  // message box appears once it is stored.
  function preChat(heading) {
    ui.form.hidden = true;
    var name = el('input', { type: 'text', maxlength: 100, autocomplete: 'name', required: true, 'aria-label': T.name, placeholder: T.name });
    var mail = el('input', { type: 'email', maxlength: 254, autocomplete: 'email', required: true, 'aria-label': T.email, placeholder: T.email });
    var go = el('button', { type: 'submit', text: T.start });
    var pf = el('form', { class: 'hf pc', onsubmit: safe(function (ev) {
      ev.preventDefault();
      go.disabled = true;
      request('/chat/lead-capture', { method: 'POST', body: { name: name.value.trim().slice(0, 100),
        email: mail.value.trim().slice(0, 254), source: 'pre_chat' } }).then(function (res) {
        return res.ok ? res.json() : errorText(res).then(function (msg) { throw { friendly: msg }; });
      }).then(function (r) {
        if (r && typeof r.session_id === 'string') setSession(r.session_id);
        if (pf.parentNode) pf.parentNode.removeChild(pf);
        ui.form.hidden = false;
        ui.input.focus();
      }).catch(function (e) { go.disabled = false; notice((e && e.friendly) || T.network); });
    }) }, [el('p', { text: heading || T.prechat }), name, mail, go]);
    addRow(pf);
  }

  function live() {
    if (st.live || !st.session || typeof TextDecoder !== 'function') return;
    var sid = st.session;
    st.live = { last: st.live_last || 0 };
    var ctl = typeof AbortController === 'function' ? new AbortController() : null;
    st.live.ctl = ctl;
    var typing = null;
    var stop = function () { if (ctl) ctl.abort(); st.live = null; };
    var on = function (kind, d) {
      if (!d || d.session_id !== sid) return;
      if (kind === 'message' && d.role === 'operator') {
        if (typing) { if (typing.row.parentNode) typing.row.parentNode.removeChild(typing.row); typing = null; }
        var b = bubble('a', str(d.text, 4000));
        b.row.classList.add('o');
        addRow(b.row);
      } else if (kind === 'typing' && !typing) {
        typing = notice(T.typing);
        setTimeout(function () { if (typing && typing.row.parentNode) typing.row.parentNode.removeChild(typing.row); typing = null; }, 4000);
      } else if (kind === 'mode') {
        if (d.mode === 'human') notice(T.joined);
        if (d.mode === 'bot') { notice(T.back); stop(); }
        if (d.mode === 'closed') { notice(T.closed); stop(); }
      }
    };
    var path = '/chat/events/' + encodeURIComponent(sid);
    var opts = { signal: ctl ? ctl.signal : undefined };
    var go = function () {
      var headers = st.live && st.live.last ? { 'Last-Event-ID': String(st.live.last) } : null;
      opts.headers = headers;
      return request(path, opts).then(function (res) {
        if (!res.ok || !res.body) throw new Error('events ' + res.status);
        var reader = res.body.getReader(), dec = new TextDecoder(), buf = '';
        var pump = function () {
          return reader.read().then(function (r) {
            if (r.done) throw new Error('events closed');
            buf += dec.decode(r.value, { stream: true });
            var i;
            while ((i = buf.indexOf('\n\n')) >= 0) {
              var id = 0, kind = '', data = '';
              buf.slice(0, i).split('\n').forEach(function (l) {
                if (l.indexOf('id: ') === 0) id = parseInt(l.slice(4), 10) || 0;
                else if (l.indexOf('event: ') === 0) kind = l.slice(7);
                else if (l.indexOf('data: ') === 0) data += l.slice(6);
              });
              buf = buf.slice(i + 2);
              if (id && st.live) st.live.last = st.live_last = id;
              if (kind) on(kind, parseJSON(data));
            }
            return st.live ? pump() : null;
          });
        };
        return pump();
      }).catch(function () { if (st.live) setTimeout(go, 3000); });
    };
    go();
  }

  function boot() {
    build();
    st.session = sget('localStorage', SESSION) || null;
    if (st.session && (st.session.length > 200)) st.session = null;
    loadSettings().then(function () {
      if (sget('sessionStorage', OPENED) === '1') openPanel(false);
    }).catch(noop);
    addEventListener('pagehide', safe(leave));
    document.addEventListener('visibilitychange', safe(function () {
      if (document.visibilityState === 'hidden') leave(); else st.left = false;
    }));
  }

  if (document.body) safe(boot)();
  else document.addEventListener('DOMContentLoaded', safe(boot), { once: true });
})();

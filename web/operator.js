// Operator inbox: plain JS, no build step. Everything shown is set with
// textContent; the operator key lives in sessionStorage only.
(function () {
  'use strict';
  var $ = function (id) { return document.getElementById(id); };
  var key = sessionStorage.getItem('concierge_operator_key') || '';
  var current = null, convs = {}, lastEventID = 0, streamAbort = null, typingAt = 0, baseTitle = document.title;

  function api(method, path, body) {
    var opts = { method: method, headers: { 'X-Operator-Key': key } };
    if (body !== undefined) { opts.headers['Content-Type'] = 'application/json'; opts.body = JSON.stringify(body); }
    return fetch(path, opts).then(function (r) {
      return r.json().catch(function () { return {}; }).then(function (j) {
        if (r.status === 401) { signOut(); }
        if (!r.ok) { var e = new Error(typeof j.detail === 'string' ? j.detail : 'Request failed (' + r.status + ')'); e.status = r.status; throw e; }
        return j;
      });
    });
  }
  function el(tag, text, cls) { var e = document.createElement(tag); if (text !== undefined) { e.textContent = text; } if (cls) { e.className = cls; } return e; }

  function show(signedIn) { $('signin').hidden = signedIn; $('inbox').hidden = !signedIn; }
  function signOut() { key = ''; sessionStorage.removeItem('concierge_operator_key'); if (streamAbort) { streamAbort.abort(); } show(false); }

  $('signin-form').addEventListener('submit', function (ev) {
    ev.preventDefault();
    fetch('/auth/operator-login', { method: 'POST', headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ email: $('email').value, password: $('password').value }) })
      .then(function (r) { return r.json().then(function (j) { if (!r.ok) { throw new Error('Sign-in failed'); } return j; }); })
      .then(function (j) { key = j.operator_key; sessionStorage.setItem('concierge_operator_key', key); start(); })
      .catch(function (e) { $('signin-error').textContent = e.message; });
  });
  $('signout').addEventListener('click', signOut);
  $('queue').addEventListener('change', loadList);
  $('status').addEventListener('change', function () { api('PUT', '/operators/me/status', { status: $('status').value }); });

  function loadList() {
    return api('GET', '/operators/conversations?queue=' + encodeURIComponent($('queue').value) + '&limit=100').then(function (page) {
      var ul = $('list'); ul.textContent = '';
      convs = {};
      page.items.forEach(function (c) {
        convs[c.session_id] = c;
        var li = el('li'); li.setAttribute('role', 'option'); li.tabIndex = 0;
        li.setAttribute('aria-selected', String(c.session_id === current));
        li.appendChild(el('strong', c.visitor_name || c.visitor_email || 'Visitor'));
        li.appendChild(el('span', ' · ' + c.mode));
        if (c.unread_count > 0) { li.appendChild(el('span', String(c.unread_count), 'badge')); }
        if (c.last_message) { li.appendChild(el('div', c.last_message.text.slice(0, 80))); }
        var open = function () { openConv(c.session_id); };
        li.addEventListener('click', open);
        li.addEventListener('keydown', function (e) { if (e.key === 'Enter' || e.key === ' ') { e.preventDefault(); open(); } });
        ul.appendChild(li);
      });
    }).catch(function () {});
  }

  function addMessage(m) {
    var who = m.role === 'operator' ? 'You' : m.role === 'user' ? 'Visitor' : 'Bot';
    var li = el('li', who + ': ' + m.text, m.role);
    li.dataset.id = m.message_id;
    $('transcript').appendChild(li);
    li.scrollIntoView({ block: 'end' });
  }

  function openConv(id) {
    current = id;
    api('GET', '/operators/conversations/' + encodeURIComponent(id)).then(function (d) {
      $('conv').hidden = false;
      $('conv-title').textContent = (d.visitor_name || 'Visitor') + (d.visitor_email ? ' <' + d.visitor_email + '>' : '') + ' · ' + d.mode;
      $('conv-lead').textContent = d.lead ? 'Lead: ' + d.lead.tier + ' (' + d.lead.score + ')' : '';
      $('transcript').textContent = '';
      d.messages.forEach(addMessage);
      setMode(d.mode);
      api('POST', '/operators/conversations/' + encodeURIComponent(id) + '/read').then(loadList);
    });
  }
  function setMode(mode) {
    $('claim').disabled = mode !== 'waiting';
    $('release').disabled = $('close').disabled = !(mode === 'waiting' || mode === 'human');
    $('reply').disabled = mode !== 'human';
  }
  function action(name) {
    return function () {
      if (!current) { return; }
      api('POST', '/operators/conversations/' + encodeURIComponent(current) + '/' + name)
        .then(function (c) { setMode(c.mode); $('reply-error').textContent = ''; loadList(); })
        .catch(function (e) { $('reply-error').textContent = e.message; });
    };
  }
  $('claim').addEventListener('click', action('claim'));
  $('release').addEventListener('click', action('release'));
  $('close').addEventListener('click', action('close'));
  $('reply').addEventListener('input', function () {
    var now = Date.now();
    if (current && now - typingAt > 2000) { typingAt = now; api('POST', '/operators/conversations/' + encodeURIComponent(current) + '/typing').catch(function () {}); }
  });
  $('reply-form').addEventListener('submit', function (ev) {
    ev.preventDefault();
    var text = $('reply').value.trim();
    if (!text || !current) { return; }
    api('POST', '/operators/conversations/' + encodeURIComponent(current) + '/messages', { text: text })
      .then(function () { $('reply').value = ''; $('reply-error').textContent = ''; })
      .catch(function (e) { $('reply-error').textContent = e.message; });
  });
  $('reply').addEventListener('keydown', function (e) {
    if (e.key === 'Enter' && !e.shiftKey) { e.preventDefault(); $('reply-form').requestSubmit(); }
  });

  function onEvent(kind, data) {
    if (kind === 'mode' && data.mode === 'waiting') {
      document.title = '(new) ' + baseTitle;
      try { var ctx = new AudioContext(), o = ctx.createOscillator(); o.connect(ctx.destination); o.start(); o.stop(ctx.currentTime + 0.15); } catch (e) { /* no sound */ }
    }
    if (data.session_id === current) {
      if (kind === 'message') { addMessage(data); }
      if (kind === 'mode') { setMode(data.mode); }
      if (kind === 'typing') { $('typing').textContent = 'Typing…'; setTimeout(function () { $('typing').textContent = ''; }, 3000); }
    }
    if (kind !== 'typing') { loadList(); }
  }

  // Server-sent events over fetch (EventSource cannot send the key header);
  // reconnects by itself with Last-Event-ID.
  function stream() {
    if (!key) { return; }
    streamAbort = new AbortController();
    var headers = { 'X-Operator-Key': key };
    if (lastEventID) { headers['Last-Event-ID'] = String(lastEventID); }
    fetch('/operators/events', { headers: headers, signal: streamAbort.signal }).then(function (r) {
      if (!r.ok || !r.body) { throw new Error('stream ' + r.status); }
      $('conn').textContent = 'Connected';
      var reader = r.body.getReader(), dec = new TextDecoder(), buf = '';
      function pump() {
        return reader.read().then(function (res) {
          if (res.done) { throw new Error('closed'); }
          buf += dec.decode(res.value, { stream: true });
          var i;
          while ((i = buf.indexOf('\n\n')) >= 0) {
            var block = buf.slice(0, i); buf = buf.slice(i + 2);
            var id = 0, kind = '', data = '';
            block.split('\n').forEach(function (line) {
              if (line.indexOf('id: ') === 0) { id = parseInt(line.slice(4), 10); }
              else if (line.indexOf('event: ') === 0) { kind = line.slice(7); }
              else if (line.indexOf('data: ') === 0) { data += line.slice(6); }
            });
            if (kind) { if (id) { lastEventID = id; } try { onEvent(kind, JSON.parse(data)); } catch (e) { /* ignore */ } }
          }
          return pump();
        });
      }
      return pump();
    }).catch(function () {
      $('conn').textContent = 'Reconnecting…';
      if (key) { setTimeout(stream, 2000); }
    });
  }
  document.addEventListener('visibilitychange', function () { if (!document.hidden) { document.title = baseTitle; } });

  function start() { show(true); loadList(); stream(); }
  if (key) { start(); } else { show(false); }
})();

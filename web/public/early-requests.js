/*
 * Starts the first screen's API requests while the dashboard's code is still downloading and
 * compiling, instead of one after another once React has mounted (session, then projects, then the
 * screen's data: three round trips in a row). A plain script, not a module, so it runs as soon as it
 * arrives; the app's API client (src/api/early.ts) takes each answer once, by method, URL and
 * project, and asks the network itself for anything else. Answers not taken within a few seconds
 * are ignored. Same origin only, so the session cookie goes with them as with any app request.
 */
(function () {
  'use strict';
  var started = {};
  function get(path, projectId) {
    var headers = projectId ? { 'X-Project-Id': projectId } : {};
    started['GET ' + path + ' ' + (projectId || '')] = {
      at: Date.now(),
      response: fetch(path, { credentials: 'same-origin', headers: headers }),
    };
  }
  var path = location.pathname;
  // Pages without a session do not need these.
  if (/^\/app\/(login|signup|forgot-password|reset-password|verify-email|invitations)(\/|$)/.test(path)) return;
  get('/users/@me');
  get('/users/@me/projects');
  // The contact list opens on its first page, newest first, unfiltered (the list's FIRST_PAGE).
  var contacts = /^\/app\/p\/([0-9a-fA-F-]{36})\/contacts\/?$/.exec(path);
  if (contacts && !location.search) get('/contacts?limit=50&sort=createdAt&dir=desc', contacts[1]);
  window.__pigeonEarly = started;
})();

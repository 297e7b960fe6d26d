// Package chrome drives a headless Chromium through the DevTools protocol
// over a pipe (--remote-debugging-pipe: commands on the browser's file
// descriptor 3, replies and events on 4, each a JSON message ended by a
// NUL byte), so that tests can render a page, take a full-page screenshot
// and collect what the page logged: console messages, uncaught exceptions,
// log entries (failed loads, blocked content) and every network request.
// No port is opened. It knows the few commands it needs and nothing more.
package chrome

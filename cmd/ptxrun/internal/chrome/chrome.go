package chrome

import (
	"bufio"
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"sync"
	"time"
)

// Find returns the path of a Chromium or Chrome binary on PATH ("" when
// there is none): $CHROMIUM first, then chromium, chromium-browser,
// google-chrome.
func Find() string {
	if p := os.Getenv("CHROMIUM"); p != "" {
		if q, err := exec.LookPath(p); err == nil {
			return q
		}
	}
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	return ""
}

// Browser is a running headless browser.
type Browser struct {
	cmd    *exec.Cmd
	in     *os.File // our end of the browser's fd 3
	out    *os.File // our end of the browser's fd 4
	stderr bytes.Buffer
	dir    string

	mu      sync.Mutex
	nextID  int
	waiting map[int]chan reply
	events  map[string][]event // by session id
	notify  chan struct{}
	done    chan struct{}
	readErr error
}

type reply struct {
	Result json.RawMessage
	Err    *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	}
}

type event struct {
	Method string
	Params json.RawMessage
}

// Start starts the browser at path headless, with a fresh profile in a
// temporary folder, no network services of its own (no component updates,
// no sync, no background networking) and no GPU.
func Start(path string) (*Browser, error) {
	dir, err := os.MkdirTemp("", "ptxrun-chrome-")
	if err != nil {
		return nil, err
	}
	// Our writes go to the browser's fd 3, its writes come from fd 4.
	cmdR, cmdW, err := os.Pipe()
	if err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	evR, evW, err := os.Pipe()
	if err != nil {
		cmdR.Close()
		cmdW.Close()
		os.RemoveAll(dir)
		return nil, err
	}
	b := &Browser{in: cmdW, out: evR, dir: dir, waiting: map[int]chan reply{}, events: map[string][]event{},
		notify: make(chan struct{}, 1), done: make(chan struct{})}
	b.cmd = exec.Command(path,
		"--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
		"--disable-background-networking", "--disable-component-update", "--disable-sync",
		"--disable-default-apps", "--disable-extensions", "--mute-audio", "--hide-scrollbars",
		"--user-data-dir="+dir, "--remote-debugging-pipe", "about:blank")
	b.cmd.ExtraFiles = []*os.File{cmdR, evW}
	b.cmd.Stderr = &lockedWriter{mu: &b.mu, w: &b.stderr}
	if err := b.cmd.Start(); err != nil {
		cmdR.Close()
		cmdW.Close()
		evR.Close()
		evW.Close()
		os.RemoveAll(dir)
		return nil, err
	}
	cmdR.Close()
	evW.Close()
	go b.read()
	return b, nil
}

type lockedWriter struct {
	mu *sync.Mutex
	w  *bytes.Buffer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.w.Len() > 1<<20 {
		return len(p), nil
	}
	return l.w.Write(p)
}

// Stderr returns what the browser printed on its standard error so far.
func (b *Browser) Stderr() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.stderr.String()
}

func (b *Browser) read() {
	r := bufio.NewReaderSize(b.out, 1<<20)
	var err error
	for {
		var msg []byte
		msg, err = r.ReadBytes(0)
		if err != nil {
			break
		}
		msg = msg[:len(msg)-1]
		var m struct {
			ID        int             `json:"id"`
			Method    string          `json:"method"`
			Params    json.RawMessage `json:"params"`
			SessionID string          `json:"sessionId"`
			Result    json.RawMessage `json:"result"`
			Error     *struct {
				Code    int    `json:"code"`
				Message string `json:"message"`
			} `json:"error"`
		}
		if json.Unmarshal(msg, &m) != nil {
			continue
		}
		b.mu.Lock()
		if m.Method != "" {
			b.events[m.SessionID] = append(b.events[m.SessionID], event{m.Method, m.Params})
			select {
			case b.notify <- struct{}{}:
			default:
			}
		} else if ch, ok := b.waiting[m.ID]; ok {
			delete(b.waiting, m.ID)
			ch <- reply{m.Result, m.Error}
		}
		b.mu.Unlock()
	}
	b.mu.Lock()
	b.readErr = err
	for id, ch := range b.waiting {
		delete(b.waiting, id)
		close(ch)
	}
	b.mu.Unlock()
	close(b.done)
}

// call sends a command (to the browser when session is "", else to a
// page's session) and decodes its result into out (may be nil).
func (b *Browser) call(ctx context.Context, session, method string, params any, out any) error {
	b.mu.Lock()
	if b.readErr != nil {
		b.mu.Unlock()
		return fmt.Errorf("browser gone: %v", b.readErr)
	}
	b.nextID++
	id := b.nextID
	ch := make(chan reply, 1)
	b.waiting[id] = ch
	b.mu.Unlock()
	msg := map[string]any{"id": id, "method": method}
	if params != nil {
		msg["params"] = params
	}
	if session != "" {
		msg["sessionId"] = session
	}
	data, err := json.Marshal(msg)
	if err != nil {
		return err
	}
	if _, err := b.in.Write(append(data, 0)); err != nil {
		return fmt.Errorf("%s: %w", method, err)
	}
	select {
	case <-ctx.Done():
		return fmt.Errorf("%s: %w", method, ctx.Err())
	case r, ok := <-ch:
		if !ok {
			return fmt.Errorf("%s: the browser closed the pipe", method)
		}
		if r.Err != nil {
			return fmt.Errorf("%s: %s (%d)", method, r.Err.Message, r.Err.Code)
		}
		if out != nil {
			return json.Unmarshal(r.Result, out)
		}
		return nil
	}
}

// Close ends the browser and removes its profile.
func (b *Browser) Close() error {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_ = b.call(ctx, "", "Browser.close", nil, nil)
	b.in.Close()
	exited := make(chan error, 1)
	go func() { exited <- b.cmd.Wait() }()
	select {
	case <-exited:
	case <-time.After(10 * time.Second):
		_ = b.cmd.Process.Kill()
		<-exited
	}
	b.out.Close()
	return os.RemoveAll(b.dir)
}

// Page is what rendering a page produced.
type Page struct {
	// PNG is a screenshot of the whole page at the viewport's width.
	PNG []byte
	// Width and Height are the page's size in CSS pixels (scrollWidth and
	// scrollHeight of the document).
	Width, Height int
	// Console holds the console messages (type: text), Exceptions the
	// uncaught exceptions' descriptions, Log the browser's log entries
	// (level: text), Requests the URL of every request the page made.
	Console    []string
	Exceptions []string
	Log        []string
	Requests   []string
	// Eval is what Options.Eval returned (as a string).
	Eval string
}

// Options says how to render a page.
type Options struct {
	// Width is the viewport's width in CSS pixels (its height is 900);
	// MaxHeight bounds the screenshot's height.
	Width, MaxHeight int
	// Eval, when set, is a JavaScript expression evaluated after the
	// screenshot (it may return a promise); its value is Page.Eval.
	Eval string
}

// Errors returns the console errors, exceptions and error log entries.
func (p *Page) Errors() []string {
	var out []string
	for _, c := range p.Console {
		if strings.HasPrefix(c, "error:") || strings.HasPrefix(c, "assert:") {
			out = append(out, c)
		}
	}
	out = append(out, p.Exceptions...)
	for _, l := range p.Log {
		if strings.HasPrefix(l, "error:") {
			out = append(out, l)
		}
	}
	return out
}

// Render opens url in a new tab opt.Width CSS pixels wide, waits for the
// load event and for fonts and layout to settle, takes a screenshot of the
// whole page (up to opt.MaxHeight pixels), evaluates opt.Eval and closes
// the tab.
func (b *Browser) Render(ctx context.Context, url string, opt Options) (*Page, error) {
	width, maxHeight := opt.Width, opt.MaxHeight
	var target struct {
		TargetID string `json:"targetId"`
	}
	if err := b.call(ctx, "", "Target.createTarget", map[string]any{"url": "about:blank"}, &target); err != nil {
		return nil, err
	}
	defer b.call(context.Background(), "", "Target.closeTarget", map[string]any{"targetId": target.TargetID}, nil)
	var att struct {
		SessionID string `json:"sessionId"`
	}
	if err := b.call(ctx, "", "Target.attachToTarget", map[string]any{"targetId": target.TargetID, "flatten": true}, &att); err != nil {
		return nil, err
	}
	s := att.SessionID
	for _, m := range []string{"Runtime.enable", "Log.enable", "Page.enable", "Network.enable"} {
		if err := b.call(ctx, s, m, nil, nil); err != nil {
			return nil, err
		}
	}
	if err := b.call(ctx, s, "Emulation.setDeviceMetricsOverride", map[string]any{
		"width": width, "height": 900, "deviceScaleFactor": 1, "mobile": false}, nil); err != nil {
		return nil, err
	}
	var nav struct {
		ErrorText string `json:"errorText"`
	}
	if err := b.call(ctx, s, "Page.navigate", map[string]any{"url": url}, &nav); err != nil {
		return nil, err
	}
	if nav.ErrorText != "" {
		return nil, fmt.Errorf("navigate to %s: %s", url, nav.ErrorText)
	}
	if err := b.waitEvent(ctx, s, "Page.loadEventFired"); err != nil {
		return nil, err
	}
	var size struct {
		Result struct {
			Value string `json:"value"`
		} `json:"result"`
	}
	// Wait for fonts, then two animation frames, so that layout is final.
	expr := `document.fonts.ready.then(() => new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r))))
		.then(() => JSON.stringify([document.documentElement.scrollWidth, document.documentElement.scrollHeight]))`
	if err := b.call(ctx, s, "Runtime.evaluate", map[string]any{"expression": expr, "awaitPromise": true, "returnByValue": true}, &size); err != nil {
		return nil, err
	}
	p := &Page{}
	var wh [2]int
	if err := json.Unmarshal([]byte(size.Result.Value), &wh); err != nil {
		return nil, fmt.Errorf("page size %q: %v", size.Result.Value, err)
	}
	p.Width, p.Height = wh[0], wh[1]
	h := min(p.Height, maxHeight)
	var shot struct {
		Data string `json:"data"`
	}
	if err := b.call(ctx, s, "Page.captureScreenshot", map[string]any{"format": "png", "captureBeyondViewport": true,
		"clip": map[string]any{"x": 0, "y": 0, "width": width, "height": h, "scale": 1}}, &shot); err != nil {
		return nil, err
	}
	png, err := base64.StdEncoding.DecodeString(shot.Data)
	if err != nil {
		return nil, err
	}
	p.PNG = png
	if opt.Eval != "" {
		var ev struct {
			Result struct {
				Value any `json:"value"`
			} `json:"result"`
			Exception *struct {
				Text string `json:"text"`
			} `json:"exceptionDetails"`
		}
		if err := b.call(ctx, s, "Runtime.evaluate", map[string]any{"expression": opt.Eval, "awaitPromise": true, "returnByValue": true}, &ev); err != nil {
			return nil, err
		}
		if ev.Exception != nil {
			return nil, fmt.Errorf("evaluating a check: %s", ev.Exception.Text)
		}
		p.Eval = fmt.Sprint(ev.Result.Value)
	}
	b.collect(s, p)
	return p, nil
}

// waitEvent waits until the session has had an event of method.
func (b *Browser) waitEvent(ctx context.Context, session, method string) error {
	for {
		b.mu.Lock()
		for _, e := range b.events[session] {
			if e.Method == method {
				b.mu.Unlock()
				return nil
			}
		}
		b.mu.Unlock()
		select {
		case <-ctx.Done():
			return fmt.Errorf("waiting for %s: %w", method, ctx.Err())
		case <-b.done:
			return errors.New("the browser closed the pipe")
		case <-b.notify:
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// collect turns the session's events into the page's logs.
func (b *Browser) collect(session string, p *Page) {
	b.mu.Lock()
	evs := b.events[session]
	delete(b.events, session)
	b.mu.Unlock()
	for _, e := range evs {
		switch e.Method {
		case "Runtime.consoleAPICalled":
			var c struct {
				Type string `json:"type"`
				Args []struct {
					Value       any    `json:"value"`
					Description string `json:"description"`
				} `json:"args"`
			}
			if json.Unmarshal(e.Params, &c) == nil {
				var parts []string
				for _, a := range c.Args {
					if a.Value != nil {
						parts = append(parts, fmt.Sprint(a.Value))
					} else {
						parts = append(parts, a.Description)
					}
				}
				p.Console = append(p.Console, c.Type+": "+strings.Join(parts, " "))
			}
		case "Runtime.exceptionThrown":
			var x struct {
				Details struct {
					Text      string `json:"text"`
					Exception struct {
						Description string `json:"description"`
					} `json:"exception"`
				} `json:"exceptionDetails"`
			}
			if json.Unmarshal(e.Params, &x) == nil {
				p.Exceptions = append(p.Exceptions, strings.TrimSpace(x.Details.Text+" "+x.Details.Exception.Description))
			}
		case "Log.entryAdded":
			var l struct {
				Entry struct {
					Level string `json:"level"`
					Text  string `json:"text"`
					URL   string `json:"url"`
				} `json:"entry"`
			}
			if json.Unmarshal(e.Params, &l) == nil {
				p.Log = append(p.Log, l.Entry.Level+": "+l.Entry.Text+" "+l.Entry.URL)
			}
		case "Network.requestWillBeSent":
			var r struct {
				Request struct {
					URL string `json:"url"`
				} `json:"request"`
			}
			if json.Unmarshal(e.Params, &r) == nil {
				p.Requests = append(p.Requests, r.Request.URL)
			}
		}
	}
}

package upstream

import (
	"bytes"
	"io"
	"net/http"
	"time"
)

// maxKept is the longest body of a refusal that a retry keeps in memory, to return it should the
// retry not be sent; a refusal with a longer body is returned at once.
const maxKept = 64 << 10

// refused reports whether resp is a refusal worth sending the request again for: a 429 or a 503
// whose upstream said when to come back.
func refused(resp *http.Response, pause time.Duration) bool {
	s := resp.StatusCode
	return pause > 0 && (s == http.StatusTooManyRequests || s == http.StatusServiceUnavailable)
}

// replayable reports whether req may be sent again: its body can be had again, and its method is
// idempotent or the Transport may retry any method.
func (t *Transport) replayable(req *http.Request) bool {
	if req.Body != nil && req.Body != http.NoBody && req.GetBody == nil {
		return false
	}
	return t.cfg.anyVerb || idempotent(req)
}

// idempotent reports whether req's method is idempotent (RFC 9110, section 9.2.2), or req says it
// is with an Idempotency-Key field, as net/http's own Transport reads it.
func idempotent(req *http.Request) bool {
	switch req.Method {
	case "", http.MethodGet, http.MethodHead, http.MethodOptions, http.MethodTrace, http.MethodPut, http.MethodDelete:
		return true
	}
	_, key := req.Header["Idempotency-Key"]
	_, xkey := req.Header["X-Idempotency-Key"]
	return key || xkey
}

// rewind returns the request to send at try: req itself first, then a clone with a new body
// from GetBody.
func rewind(req *http.Request, try int) (*http.Request, error) {
	if try == 0 {
		return req, nil
	}
	r := req.Clone(req.Context())
	if req.Body == nil || req.Body == http.NoBody {
		return r, nil
	}
	body, err := req.GetBody()
	if err != nil {
		return nil, err
	}
	r.Body = body
	return r, nil
}

// keep reads resp's body into memory and closes it, so that the refusal can stand while its
// request waits to be sent again; if the body is longer than maxKept or fails, it leaves resp
// with the same bytes to read and returns false.
func keep(resp *http.Response) bool {
	b, err := io.ReadAll(io.LimitReader(resp.Body, maxKept+1))
	if err != nil || len(b) > maxKept {
		resp.Body = struct {
			io.Reader
			io.Closer
		}{io.MultiReader(bytes.NewReader(b), resp.Body), resp.Body}
		return false
	}
	resp.Body.Close()
	resp.Body = io.NopCloser(bytes.NewReader(b))
	return true
}

package provider

import (
	"errors"
	"fmt"
	"net"
	"syscall"
)

// ErrorKind classifies a failed call so callers can react (retry, show a
// setup hint) without parsing messages.
type ErrorKind int

// Error kinds.
const (
	ErrOther      ErrorKind = iota
	ErrAuth                 // key missing or rejected (401, 403)
	ErrNotFound             // unknown model or wrong base URL (404)
	ErrRateLimit            // 429, after the retries
	ErrServer               // 5xx, after the retries
	ErrTimeout              // no answer in time
	ErrNetwork              // cannot connect
	ErrCutOff               // the stream ended before the answer did
	ErrBadRequest           // 400: the server refused the request
	ErrNoModel              // no usable model is configured
	ErrBadModel             // the model named is not one that can be used
	ErrAborted              // the caller cancelled the call (Err is the context's error)
	ErrConfig               // models.json, auth.json or settings.json cannot be used (Detail names the file)
)

// Error is a failed model call. Error() is one sentence that says what
// happened and what to do.
type Error struct {
	Kind     ErrorKind
	Status   int    // HTTP status, when there was one
	Provider string // provider name from the configuration
	Detail   string // the server's own message, trimmed
	Hint     string // what the user can do
	Err      error  // underlying error, if any
}

func (e *Error) Error() string {
	msg := e.Detail
	if msg == "" && e.Err != nil {
		msg = e.Err.Error()
	}
	s := e.Provider
	if s != "" {
		s += ": "
	}
	switch k := kindText(e.Kind, e.Status); {
	case k == "":
		s += msg
	case msg != "":
		s += k + " (" + msg + ")"
	default:
		s += k
	}
	if e.Hint != "" {
		s += "; " + e.Hint
	}
	return s
}

func (e *Error) Unwrap() error { return e.Err }

func kindText(k ErrorKind, status int) string {
	switch k {
	case ErrAuth:
		if status == 0 {
			return "no API key is set"
		}
		return "the API key was rejected"
	case ErrNotFound:
		return "the model or endpoint was not found"
	case ErrRateLimit:
		return "rate limited by the server"
	case ErrServer:
		if status == 0 {
			return "the server failed"
		}
		return fmt.Sprintf("the server failed (HTTP %d)", status)
	case ErrTimeout:
		return "the server did not answer in time"
	case ErrNetwork:
		return "cannot reach the server"
	case ErrCutOff:
		return "the answer was cut off mid-stream"
	case ErrBadRequest:
		return "the server refused the request"
	case ErrNoModel:
		return "no model is configured"
	case ErrBadModel:
		return "that model cannot be used"
	case ErrAborted:
		return "the call was cancelled"
	case ErrConfig:
		return "" // the detail is the sentence
	}
	if status != 0 {
		return fmt.Sprintf("the call failed (HTTP %d)", status)
	}
	return "the call failed"
}

// networkDetail says in words what failed when a call got no answer at
// all: which address refused the connection, or which host name does not
// exist, instead of Go's "dial tcp 127.0.0.1:9: connect: connection
// refused". It is "" for an error it has no words for (the error's own
// text is shown then).
func networkDetail(err error) string {
	var dns *net.DNSError
	var op *net.OpError
	switch {
	case errors.As(err, &dns):
		if dns.IsNotFound {
			return "no host is named " + dns.Name
		}
		return "the host name " + dns.Name + " could not be looked up (" + dns.Err + ")"
	case errors.As(err, &op) && op.Addr != nil:
		addr := op.Addr.String()
		switch {
		case errors.Is(err, syscall.ECONNREFUSED):
			return "connection to " + addr + " refused"
		case errors.Is(err, syscall.ECONNRESET):
			return "connection to " + addr + " reset"
		case errors.Is(err, syscall.EHOSTUNREACH), errors.Is(err, syscall.ENETUNREACH):
			return "no route to " + addr
		case op.Timeout():
			return "no connection to " + addr + " in time"
		}
	}
	return ""
}

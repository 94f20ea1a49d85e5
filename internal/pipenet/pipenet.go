// Package pipenet is a net.Listener for tests whose connections are net.Pipe pairs: in memory and
// durably blocking, so that a server and its client run inside a testing/synctest bubble, on its
// virtual clock. The tests of upstream and of the examples share it.
package pipenet

import (
	"context"
	"net"
	"sync"
)

// Listener is a net.Listener whose connections are the server's ends of the pipes that Dial
// makes. Make it with Listen; the zero Listener is not usable. It is safe for concurrent use.
type Listener struct {
	conns  chan net.Conn
	closed chan struct{}
	once   sync.Once
}

// Listen returns a new, open Listener.
func Listen() *Listener {
	return &Listener{conns: make(chan net.Conn), closed: make(chan struct{})}
}

// Accept waits for the server's end of the next pipe that Dial makes; after Close it returns
// net.ErrClosed.
func (l *Listener) Accept() (net.Conn, error) {
	select {
	case c := <-l.conns:
		return c, nil
	case <-l.closed:
		return nil, net.ErrClosed
	}
}

// Close closes l: Accept and Dial return net.ErrClosed from then on. Closing it again does nothing.
func (l *Listener) Close() error {
	l.once.Do(func() { close(l.closed) })
	return nil
}

// Addr returns the address "pipe" of network "pipe".
func (l *Listener) Addr() net.Addr { return addr{} }

// Dial returns the client's end of a new pipe once Accept has taken the server's: net.ErrClosed
// if l is closed first, ctx's error if ctx is done first.
func (l *Listener) Dial(ctx context.Context) (net.Conn, error) {
	client, srv := net.Pipe()
	select {
	case l.conns <- srv:
		return client, nil
	case <-l.closed:
		return nil, net.ErrClosed
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

type addr struct{}

func (addr) Network() string { return "pipe" }
func (addr) String() string  { return "pipe" }

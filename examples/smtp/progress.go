package main

import (
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/schollz/progressbar/v3"
)

// progress draws a bar (github.com/schollz/progressbar) whose ETA is the planner's, counting down
// between messages.
type progress struct {
	bar    *progressbar.ProgressBar
	mu     sync.Mutex
	finish time.Time // when the last message would go out, as last planned
	stop   chan struct{}
	done   chan struct{}
}

func newProgress(w io.Writer, total int) *progress {
	p := &progress{
		bar: progressbar.NewOptions(total,
			progressbar.OptionSetWriter(w),
			progressbar.OptionSetWidth(30),
			progressbar.OptionShowCount(),
			progressbar.OptionSetPredictTime(false),
			progressbar.OptionSetElapsedTime(false),
			progressbar.OptionThrottle(0),
		),
		stop: make(chan struct{}),
		done: make(chan struct{}),
	}
	go p.tick()
	return p
}

// update is the sender's progress function.
func (p *progress) update(done, _ int, eta time.Duration) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.finish = time.Now().Add(eta)
	_ = p.bar.Set(done)
	p.describe()
}

func (p *progress) describe() {
	p.bar.Describe(fmt.Sprintf("eta %-6v", max(time.Until(p.finish), 0).Round(100*time.Millisecond)))
}

func (p *progress) tick() {
	defer close(p.done)
	t := time.NewTicker(250 * time.Millisecond)
	defer t.Stop()
	for {
		select {
		case <-p.stop:
			return
		case <-t.C:
			p.mu.Lock()
			p.describe()
			p.mu.Unlock()
		}
	}
}

// close stops the countdown and ends the bar's line.
func (p *progress) close() {
	close(p.stop)
	<-p.done
	_ = p.bar.Finish()
}

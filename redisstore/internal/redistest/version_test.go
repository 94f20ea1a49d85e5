package redistest

import (
	"os/exec"
	"strings"
	"testing"
)

// TestServerVersion: the harness reads the major version of the redis-server on PATH.
func TestServerVersion(t *testing.T) {
	if _, err := exec.LookPath("redis-server"); err != nil {
		unavailable(t, "redis-server is not on PATH")
	}
	v := serverVersion(t)
	if v.major < 2 || !strings.Contains(v.text, "v=") {
		t.Fatalf("version %d from %q", v.major, v.text)
	}
}

package redistest

import (
	"context"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// Cluster is a Redis Cluster of three masters on loopback ports, started for a test.
type Cluster struct {
	Nodes []*Server
	buses []int // the nodes' cluster bus ports
}

const slots = 16384

// StartCluster starts three cluster-enabled redis-servers, joins them with redis-cli --cluster
// create when redis-cli is on PATH (else with CLUSTER ADDSLOTSRANGE and MEET), and waits until
// every node reports cluster_state:ok and knows every slot.
func StartCluster(t testing.TB) *Cluster {
	t.Helper()
	return startCluster(t, false)
}

// StartClusterByHand is StartCluster without redis-cli: the harness assigns slots and introduces
// the nodes itself.
func StartClusterByHand(t testing.TB) *Cluster {
	t.Helper()
	return startCluster(t, true)
}

func startCluster(t testing.TB, byHand bool) *Cluster {
	t.Helper()
	if _, err := exec.LookPath("redis-server"); err == nil { // else Spawn says so
		if v := serverVersion(t); v.major < 7 {
			unavailable(t, "the cluster harness needs redis-server 7 or later (--cluster-port, ADDSLOTSRANGE); found "+v.text)
		}
	}
	c := &Cluster{}
	for range 3 {
		bus := freePort(t)
		c.buses = append(c.buses, bus)
		c.Nodes = append(c.Nodes, Spawn(t, "--cluster-enabled", "yes", "--cluster-config-file", "nodes.conf",
			"--cluster-node-timeout", "5000", "--cluster-port", strconv.Itoa(bus)))
	}
	if _, err := exec.LookPath("redis-cli"); err == nil && !byHand {
		c.create(t)
	} else {
		c.join(t)
	}
	c.wait(t)
	return c
}

// create joins the nodes with redis-cli.
func (c *Cluster) create(t testing.TB) {
	t.Helper()
	args := []string{"--cluster", "create"}
	for _, n := range c.Nodes {
		args = append(args, n.Addr)
	}
	args = append(args, "--cluster-replicas", "0", "--cluster-yes")
	if out, err := exec.Command("redis-cli", args...).CombinedOutput(); err != nil {
		t.Fatalf("redis-cli --cluster create: %v\n%s", err, out)
	}
}

// join splits the slots evenly and has the first node meet the others.
func (c *Cluster) join(t testing.TB) {
	t.Helper()
	ctx := context.Background()
	first := redis.NewClient(c.Nodes[0].Options())
	defer first.Close()
	for i, n := range c.Nodes {
		cl := redis.NewClient(n.Options())
		lo, hi := i*slots/len(c.Nodes), (i+1)*slots/len(c.Nodes)-1
		err := cl.ClusterAddSlotsRange(ctx, lo, hi).Err()
		_ = cl.Close()
		if err != nil {
			t.Fatalf("redistest: CLUSTER ADDSLOTSRANGE on %s: %v", n.Addr, err)
		}
		if i > 0 {
			host, port, _ := strings.Cut(n.Addr, ":")
			if err := first.Do(ctx, "cluster", "meet", host, port, c.buses[i]).Err(); err != nil {
				t.Fatalf("redistest: CLUSTER MEET %s: %v", n.Addr, err)
			}
		}
	}
}

// wait polls every node until it says the cluster is ok and knows every node's slots.
func (c *Cluster) wait(t testing.TB) {
	t.Helper()
	for _, n := range c.Nodes {
		cl := redis.NewClient(n.Options())
		poll(t, 30*time.Second, "cluster ready on "+n.Addr, func(ctx context.Context) bool {
			info, err := cl.ClusterInfo(ctx).Result()
			if err != nil || !strings.Contains(info, "cluster_state:ok") {
				return false
			}
			shards, err := cl.ClusterShards(ctx).Result()
			if err != nil {
				return false
			}
			owners := 0
			for _, sh := range shards {
				if len(sh.Slots) > 0 {
					owners++
				}
			}
			return owners == len(c.Nodes)
		})
		_ = cl.Close()
	}
}

// Addrs returns the nodes' addresses.
func (c *Cluster) Addrs() []string {
	out := make([]string, len(c.Nodes))
	for i, n := range c.Nodes {
		out[i] = n.Addr
	}
	return out
}

// Client returns a cluster client, closed when the test ends.
func (c *Cluster) Client(t testing.TB) *redis.ClusterClient {
	t.Helper()
	cl := redis.NewClusterClient(&redis.ClusterOptions{Addrs: c.Addrs(), ContextTimeoutEnabled: true})
	t.Cleanup(func() { _ = cl.Close() })
	return cl
}

// version is what redis-server --version reports.
type version struct {
	major int
	text  string
}

// serverVersion runs redis-server --version ("Redis server v=7.0.15 sha=…").
func serverVersion(t testing.TB) version {
	t.Helper()
	out, err := exec.Command("redis-server", "--version").Output()
	if err != nil {
		t.Fatalf("redis-server --version: %v", err)
	}
	text := strings.TrimSpace(string(out))
	_, v, _ := strings.Cut(text, "v=")
	major, _ := strconv.Atoi(strings.SplitN(v, ".", 2)[0])
	return version{major: major, text: text}
}

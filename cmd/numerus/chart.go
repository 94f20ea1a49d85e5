package main

import (
	"fmt"
	"image/color"
	"io"
	"math"
	"os"
	"strconv"
	"time"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
	"gonum.org/v1/plot/vg/vgsvg"
)

// chart is what sim draws, with gonum.org/v1/plot: three panels on one time axis.
type chart struct {
	sims    []*simulation
	traffic string
	start   int64
	dur     int64
}

// chartWidth and chartHeight are the size of the picture.
const chartWidth, chartHeight = 10 * vg.Inch, 9 * vg.Inch

// drawCharts writes the chart to the files f names, if any.
func drawCharts(sims []*simulation, f simFlags) error {
	c := chart{sims: sims, traffic: f.traffic, start: sims[0].start, dur: f.dur}
	for _, out := range []struct {
		name string
		make func() (vg.CanvasWriterTo, draw.Canvas)
	}{{f.svg, newSVG}, {f.png, newPNG}} {
		if out.name == "" {
			continue
		}
		if err := c.writeFile(out.name, out.make); err != nil {
			return err
		}
	}
	return nil
}

func newSVG() (vg.CanvasWriterTo, draw.Canvas) {
	c := vgsvg.New(chartWidth, chartHeight)
	return c, draw.New(c)
}

func newPNG() (vg.CanvasWriterTo, draw.Canvas) {
	c := vgimg.NewWith(vgimg.UseWH(chartWidth, chartHeight), vgimg.UseDPI(96))
	return vgimg.PngCanvas{Canvas: c}, draw.New(c)
}

func (c chart) writeFile(name string, make func() (vg.CanvasWriterTo, draw.Canvas)) error {
	out, err := os.Create(name)
	if err != nil {
		return err
	}
	if err := c.write(out, make); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}

// write draws the chart on a new canvas and writes it to w.
func (c chart) write(w io.Writer, make func() (vg.CanvasWriterTo, draw.Canvas)) error {
	canvas, dc := make()
	plots, err := c.plots()
	if err != nil {
		return err
	}
	tiles := draw.Tiles{Rows: len(plots), Cols: 1, PadTop: vg.Points(6), PadBottom: vg.Points(6),
		PadLeft: vg.Points(6), PadRight: vg.Points(12), PadY: vg.Points(12)}
	grid := make2D(plots)
	cells := plot.Align(grid, tiles, dc)
	for i, p := range plots {
		p.Draw(cells[i][0])
	}
	_, err = canvas.WriteTo(w)
	return err
}

func make2D(plots []*plot.Plot) [][]*plot.Plot {
	grid := make([][]*plot.Plot, len(plots))
	for i, p := range plots {
		grid[i] = []*plot.Plot{p}
	}
	return grid
}

// plots returns the three panels, sharing the time axis.
func (c chart) plots() ([]*plot.Plot, error) {
	unit := timeUnit(c.dur)
	var plots []*plot.Plot
	for _, build := range []func(timeAxis) (*plot.Plot, error){c.requests, c.tokens, c.waits} {
		p, err := build(unit)
		if err != nil {
			return nil, err
		}
		p.X.Min, p.X.Max = 0, float64(c.dur)/float64(unit.ns)
		p.X.Tick.Marker = plainTicks{}
		p.Legend.Top, p.Legend.Left, p.Legend.XOffs = true, true, vg.Points(8)
		p.Add(plotter.NewGrid())
		plots = append(plots, p)
	}
	last := plots[len(plots)-1]
	last.X.Label.Text = fmt.Sprintf("time since %s (%s)", time.Unix(0, c.start).UTC().Format(time.RFC3339), unit.name)
	return plots, nil
}

// plainTicks are gonum's default ticks, labelled without trailing zeros ("500", not "500.00").
type plainTicks struct{}

func (plainTicks) Ticks(min, max float64) []plot.Tick {
	ticks := plot.DefaultTicks{}.Ticks(min, max)
	for i := range ticks {
		if ticks[i].Label != "" {
			ticks[i].Label = strconv.FormatFloat(ticks[i].Value, 'f', -1, 64)
		}
	}
	return ticks
}

// headroom raises an axis's top so that a legend of n lines above the data does not hide it.
func headroom(p *plot.Plot, n int) {
	p.Y.Max = p.Y.Min + (p.Y.Max-p.Y.Min)*(1+0.12*float64(n+1))
}

// timeAxis is the unit of the time axis.
type timeAxis struct {
	name string
	ns   int64
}

func timeUnit(dur int64) timeAxis {
	for _, u := range []timeAxis{{"s", 1e9}, {"min", 60e9}, {"h", 3600e9}} {
		if dur <= 180*u.ns {
			return u
		}
	}
	return timeAxis{"d", 86400e9}
}

// label names a policy's series: by its text, prefixed A: and B: when comparing.
func (c chart) label(i int, what string) string {
	if len(c.sims) == 1 {
		return what
	}
	return string(rune('A'+i)) + ": " + what
}

func (c chart) requests(u timeAxis) (*plot.Plot, error) {
	p := plot.New()
	s0 := c.sims[0]
	p.Title.Text = "Requests offered and admitted per interval of " + fmtDur(s0.width) + " (traffic " + c.traffic + ")"
	for i, s := range c.sims {
		p.Title.Text += "\n" + c.label(i, s.text)
	}
	p.Y.Label.Text = "requests per " + fmtDur(s0.width)
	if err := c.addSteps(p, u, "offered", color.Gray{150}, nil, func(b binCounts) int64 { return b.offered }, s0); err != nil {
		return nil, err
	}
	for i, s := range c.sims {
		if err := c.addSteps(p, u, c.label(i, "admitted"), plotutil.Color(i), dashes(i),
			func(b binCounts) int64 { return b.admitted }, s); err != nil {
			return nil, err
		}
	}
	p.Y.Min, p.Y.Tick.Marker = 0, plainTicks{}
	headroom(p, 1+len(c.sims))
	return p, nil
}

// dashes is the line style of the i-th policy: solid, then dashed.
func dashes(i int) []vg.Length {
	if i == 0 {
		return nil
	}
	return []vg.Length{vg.Points(6), vg.Points(3)}
}

func (c chart) addSteps(p *plot.Plot, u timeAxis, name string, col color.Color, dash []vg.Length, f func(binCounts) int64, s *simulation) error {
	pts := make(plotter.XYs, 0, len(s.perBin)+1)
	for i, b := range s.perBin {
		pts = append(pts, plotter.XY{X: float64(int64(i)*s.width) / float64(u.ns), Y: float64(f(b))})
	}
	pts = append(pts, plotter.XY{X: float64(c.dur) / float64(u.ns), Y: pts[len(pts)-1].Y})
	l, err := plotter.NewLine(pts)
	if err != nil {
		return err
	}
	l.StepStyle, l.Color, l.Width, l.Dashes = plotter.PostStep, col, vg.Points(1.5), dash
	p.Add(l)
	p.Legend.Add(name, l)
	return nil
}

func (c chart) tokens(u timeAxis) (*plot.Plot, error) {
	p := plot.New()
	p.Title.Text = "Tokens left in each limit at the end of each interval"
	p.Y.Label.Text = "% of the limit's capacity"
	n := 0
	for i, s := range c.sims {
		for j, ch := range s.children {
			pts := make(plotter.XYs, len(s.perBin))
			for k, b := range s.perBin {
				pts[k] = plotter.XY{X: float64(int64(k+1)*s.width) / float64(u.ns),
					Y: 100 * float64(b.remaining[j]) / float64(max(ch.limit, 1))}
			}
			l, err := plotter.NewLine(pts)
			if err != nil {
				return nil, err
			}
			l.Color, l.Width, l.Dashes = plotutil.Color(n+2), vg.Points(1.5), dashes(i)
			n++
			p.Add(l)
			p.Legend.Add(c.label(i, fmt.Sprintf("%s (capacity %d)", ch.text, ch.limit)), l)
		}
	}
	p.Y.Min, p.Y.Max = 0, 100
	headroom(p, n)
	p.Y.Tick.Marker = plot.ConstantTicks{{Value: 0, Label: "0"}, {Value: 25, Label: "25"},
		{Value: 50, Label: "50"}, {Value: 75, Label: "75"}, {Value: 100, Label: "100"}}
	return p, nil
}

func (c chart) waits(u timeAxis) (*plot.Plot, error) {
	p := plot.New()
	longest := int64(0)
	for _, s := range c.sims {
		longest = max(longest, s.longest)
	}
	wu := timeAxis{"s", 1e9}
	p.Title.Text = "Wait told to each refused request (until the instant the core names)"
	p.Y.Label.Text = "wait (log scale)"
	p.Y.Scale, p.Y.Tick.Marker = plot.LogScale{}, durationTicks{}
	for i, s := range c.sims {
		pts := c.waitPoints(s, u, wu)
		if len(pts) == 0 {
			continue
		}
		sc, err := plotter.NewScatter(pts)
		if err != nil {
			return nil, err
		}
		sc.Color, sc.Radius = plotutil.Color(i), vg.Points(1.5)
		sc.Shape = plotutil.Shape(i)
		p.Add(sc)
		what := "wait of a refused request"
		if s.refused > int64(len(s.waits)) {
			what = "longest wait in each interval"
		}
		p.Legend.Add(c.label(i, what), sc)
	}
	if p.Y.Min <= 0 || math.IsInf(p.Y.Min, 0) {
		p.Y.Min, p.Y.Max = 1, 10 // no refused request: an empty panel, still a valid log axis
	}
	p.Y.Max = p.Y.Max * math.Pow(max(p.Y.Max/p.Y.Min, 10), 0.1*float64(len(c.sims)+1)) // room for the legend
	return p, nil
}

// waitPoints are each refused request's wait, or each interval's longest when there were too
// many to keep.
func (c chart) waitPoints(s *simulation, u, wu timeAxis) plotter.XYs {
	var pts plotter.XYs
	x := func(at int64) float64 { return float64(at-s.start) / float64(u.ns) }
	if s.refused == int64(len(s.waits))+s.never {
		for _, w := range s.waits {
			pts = append(pts, plotter.XY{X: x(w.at), Y: float64(w.wait) / float64(wu.ns)})
		}
		return pts
	}
	for i, b := range s.perBin {
		if b.longest > 0 {
			pts = append(pts, plotter.XY{X: x(s.start + int64(i)*s.width + s.width/2), Y: float64(b.longest) / float64(wu.ns)})
		}
	}
	return pts
}

// durationTicks mark a log axis of seconds at round durations, labelled as durations (1ms, 10s,
// 1h), one label in every few when they are many.
type durationTicks struct{}

// roundDurations are the marks durationTicks picks from.
var roundDurations = []time.Duration{time.Nanosecond, 10 * time.Nanosecond, 100 * time.Nanosecond,
	time.Microsecond, 10 * time.Microsecond, 100 * time.Microsecond, time.Millisecond,
	10 * time.Millisecond, 100 * time.Millisecond, time.Second, 10 * time.Second, time.Minute,
	10 * time.Minute, time.Hour, 10 * time.Hour, 24 * time.Hour, 10 * 24 * time.Hour}

func (durationTicks) Ticks(min, max float64) []plot.Tick {
	var in []time.Duration
	for _, d := range roundDurations {
		if s := d.Seconds(); s >= min && s <= max {
			in = append(in, d)
		}
	}
	every := (len(in) + 6) / 7
	ticks := make([]plot.Tick, len(in))
	for i, d := range in {
		ticks[i] = plot.Tick{Value: d.Seconds()}
		if (len(in)-1-i)%every == 0 {
			ticks[i].Label = fmtDur(int64(d))
		}
	}
	return ticks
}

package main

import (
	"bytes"
	"encoding/xml"
	"image/png"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// svgTexts returns the text of every element of an SVG, failing if it is not well-formed XML.
func svgTexts(t *testing.T, data []byte) []string {
	t.Helper()
	var texts []string
	d := xml.NewDecoder(bytes.NewReader(data))
	for {
		tok, err := d.Token()
		if err == io.EOF {
			break
		}
		require.NoError(t, err, "the SVG is XML")
		if cd, ok := tok.(xml.CharData); ok && strings.TrimSpace(string(cd)) != "" {
			texts = append(texts, strings.TrimSpace(string(cd)))
		}
	}
	return texts
}

// TestChartSVG draws a comparison as sim --svg does and checks that the file is XML holding the
// series drawn: their names in the legends and the titles of the three panels.
func TestChartSVG(t *testing.T) {
	dir := t.TempDir()
	svg := filepath.Join(dir, "sim.svg")
	var out, errs bytes.Buffer
	code := run([]string{"sim", "gcra 5/s burst 1 & sliding 100/m & sliding 1000/d", "--traffic",
		"poisson:3/s:7+burst:40/5m", "--for", "30m", "--compare", "gcra 5/s burst 20 & window 100/m",
		"--svg", svg}, &out, &errs)
	require.Zero(t, code, errs.String())
	data, err := os.ReadFile(svg)
	require.NoError(t, err)
	texts := strings.Join(svgTexts(t, data), "\n")
	for _, want := range []string{"offered", "A: admitted", "B: admitted",
		"A: gcra 5/s burst 1 (capacity 1)", "A: sliding 100/m (capacity 100)",
		"A: sliding 1000/d (capacity 1000)", "B: gcra 5/s burst 20 (capacity 20)",
		"B: window 100/m (capacity 100)", "A: wait of a refused request", "B: wait of a refused request",
		"Tokens left in each limit at the end of each interval", "wait (log scale)",
		"time since 2026-01-01T00:00:00Z (min)"} {
		require.Contains(t, texts, want)
	}
}

// TestChartPNG renders a PNG as sim --png does and decodes it.
func TestChartPNG(t *testing.T) {
	file := filepath.Join(t.TempDir(), "sim.png")
	var out, errs bytes.Buffer
	code := run([]string{"sim", "gcra 5/s burst 1 & sliding 100/m & sliding 1000/d", "--traffic",
		"poisson:8/s:7+burst:40/5m", "--for", "30m", "--png", file}, &out, &errs)
	require.Zero(t, code, errs.String())
	f, err := os.Open(file)
	require.NoError(t, err)
	defer f.Close()
	img, err := png.Decode(f)
	require.NoError(t, err)
	require.Equal(t, 960, img.Bounds().Dx())
	require.Equal(t, 864, img.Bounds().Dy())
	require.Contains(t, out.String(), "admitted  1000")
}

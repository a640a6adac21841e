package bench

import (
	"fmt"
	"image/color"
	"time"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
)

// Plot writes the latency distribution of r to file (the format from its
// extension: .png, .svg, .pdf): a histogram of the commit → handler
// latencies with the p50, p99 and p99.9 marked. title is the plot's title.
func Plot(r *Report, title, file string) error {
	if len(r.samples) == 0 {
		return fmt.Errorf("plot: no latency samples (nothing was handled)")
	}
	vals := make(plotter.Values, len(r.samples))
	for i, d := range r.samples {
		vals[i] = float64(d) / float64(time.Millisecond)
	}
	p := plot.New()
	p.Title.Text = title
	p.X.Label.Text = "latency commit -> handler (ms)"
	p.Y.Label.Text = "events"
	h, err := plotter.NewHist(vals, 60)
	if err != nil {
		return fmt.Errorf("plot: %w", err)
	}
	p.Add(h)
	top := 0.0
	for _, b := range h.Bins {
		top = max(top, b.Weight)
	}
	h.FillColor = color.Gray{Y: 190}
	for _, m := range []struct {
		name string
		v    Millis
		c    color.Color
	}{{"p50", r.Latency.P50, color.RGBA{B: 200, A: 255}}, {"p99", r.Latency.P99, color.RGBA{R: 220, A: 255}}, {"p99.9", r.Latency.P999, color.RGBA{R: 140, G: 0, B: 140, A: 255}}} {
		x := m.v.Float()
		l, err := plotter.NewLine(plotter.XYs{{X: x, Y: 0}, {X: x, Y: top}})
		if err != nil {
			return fmt.Errorf("plot: %w", err)
		}
		l.LineStyle.Dashes = []vg.Length{vg.Points(4), vg.Points(2)}
		l.LineStyle.Color = m.c
		l.LineStyle.Width = vg.Points(1.5)
		p.Add(l)
		p.Legend.Add(fmt.Sprintf("%s %.1f ms", m.name, x), l)
	}
	p.Legend.Top = true
	p.Legend.XOffs = -vg.Points(6)
	p.Legend.YOffs = -vg.Points(6)
	p.Title.Padding = vg.Points(6)
	if err := p.Save(16*vg.Centimeter, 9*vg.Centimeter, file); err != nil {
		return fmt.Errorf("plot: %w", err)
	}
	return nil
}

package bench

import (
	"fmt"
	"unicode/utf8"
)

// chart is a horizontal bar chart drawn as inline SVG: groups of bars (a
// scenario, or the totals), one bar per strategy. Its geometry is computed
// here so that the page's template only places what it is given.
type chart struct {
	Title         string
	Width, Height float64
	Bars          []chartBar
	Labels        []chartLabel
}

type chartBar struct {
	X, Y, W, H float64
	Strategy   Strategy // its colour, by CSS class
	Tip        string   // the bar's <title>
}

type chartLabel struct {
	X, Y   float64
	Anchor string // "start" or "end"
	Text   string
	Class  string // "group" or "value"
}

// chartGroup is one group's bars: a value per strategy, and how to say it.
type chartGroup struct {
	name   string
	values []chartValue
}

type chartValue struct {
	strategy Strategy
	v        float64
	text     string // the value as shown, "56,795", "17.4s"
}

// The charts' geometry, in SVG pixels.
const (
	chartWidth     = 420.0
	chartMinLabelW = 60.0 // the groups' names, left of the bars
	chartMaxLabelW = 180.0
	chartValueW    = 84.0 // room right of the longest bar for its value
	chartBarH      = 12.0
	chartBarGap    = 3.0
	chartGroupGap  = 12.0
	chartTop       = 6.0
)

// barChart lays groups out, every bar on one scale: the largest value
// fills the room between the names and the values.
func barChart(title string, groups []chartGroup) chart {
	c := chart{Title: title, Width: chartWidth}
	top, longest := 0.0, 0
	for _, g := range groups {
		longest = max(longest, utf8.RuneCountInString(g.name))
		for _, v := range g.values {
			top = max(top, v.v)
		}
	}
	// Room for the longest name at about 6.5 px a character of the 11 px
	// font, within bounds that leave the bars theirs.
	labelW := min(max(float64(longest)*6.5+12, chartMinLabelW), chartMaxLabelW)
	room := chartWidth - labelW - chartValueW
	y, bottom := chartTop, chartTop
	for _, g := range groups {
		h := float64(len(g.values))*(chartBarH+chartBarGap) - chartBarGap
		c.Labels = append(c.Labels, chartLabel{X: labelW - 8, Y: y + h/2 + 4, Anchor: "end", Text: g.name, Class: "group"})
		for _, v := range g.values {
			w := 0.0
			if top > 0 {
				w = v.v / top * room
			}
			c.Bars = append(c.Bars, chartBar{X: labelW, Y: y, W: max(w, 1), H: chartBarH, Strategy: v.strategy,
				Tip: fmt.Sprintf("%s, %s: %s", g.name, v.strategy, v.text)})
			c.Labels = append(c.Labels, chartLabel{X: labelW + max(w, 1) + 4, Y: y + chartBarH - 2, Anchor: "start", Text: v.text, Class: "value"})
			bottom = y + chartBarH
			y += chartBarH + chartBarGap
		}
		y += chartGroupGap - chartBarGap
	}
	c.Height = bottom + chartTop
	return c
}

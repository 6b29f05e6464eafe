package plots

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"
)

// DefaultWidth and DefaultHeight are the size SaveBoth draws at: 8 by 5 inches, which is
// 768 by 480 pixels in PNG (gonum draws PNG at 96 dots per inch) and 576 by 360 points
// in SVG.
const (
	DefaultWidth  = 8 * vg.Inch
	DefaultHeight = 5 * vg.Inch
)

// Save draws p at width by height and writes it to path, as PNG or SVG after the path's
// extension (.png or .svg, in any case). It draws the whole image before it creates the
// file, so a failed drawing leaves no file behind, and it creates no directory: the
// directory of path must exist. An existing file is replaced.
//
// The same plot gives the same bytes on every call: gonum's SVG holds no date, random
// identifier or embedded font, and neither format depends on map order.
func Save(p *plot.Plot, path string, width, height vg.Length) error {
	if p == nil {
		return fmt.Errorf("save %s: no plot", path)
	}
	if !(width > 0 && height > 0) {
		return fmt.Errorf("save %s: size %v×%v: width and height must be positive", path, width, height)
	}
	format := strings.ToLower(strings.TrimPrefix(filepath.Ext(path), "."))
	if format != "png" && format != "svg" {
		return fmt.Errorf("save %s: extension %q: want .png or .svg", path, filepath.Ext(path))
	}
	data, err := encode(p, width, height, format)
	if err != nil {
		return fmt.Errorf("save %s: %w", path, err)
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		return fmt.Errorf("save %s: %w", path, err)
	}
	return nil
}

// SaveBoth writes p as dir/base.png and dir/base.svg at DefaultWidth by DefaultHeight.
// dir must exist; SaveBoth creates no directory. It stops at the first error, so a
// failed SVG can leave the PNG written.
func SaveBoth(p *plot.Plot, dir, base string) error {
	if base == "" || strings.ContainsAny(base, `/\`) {
		return fmt.Errorf("save %q in %s: want a file name without extension or directory", base, dir)
	}
	for _, ext := range []string{".png", ".svg"} {
		if err := Save(p, filepath.Join(dir, base+ext), DefaultWidth, DefaultHeight); err != nil {
			return err
		}
	}
	return nil
}

// svgFont is how gonum's SVG names the typeface of every text, and svgFonts what encode
// puts instead: the same typeface, then Arial, whose letters have the same widths, then
// any sans-serif, so that a viewer without the Liberation fonts keeps the layout (a
// missing font would otherwise fall back to the viewer's default, often a serif).
var (
	svgFont  = []byte("font-family:Liberation Sans;")
	svgFonts = []byte("font-family:'Liberation Sans',Arial,Helvetica,sans-serif;")
)

// encode draws p at width by height in format, "png" or "svg".
func encode(p *plot.Plot, width, height vg.Length, format string) ([]byte, error) {
	w, err := p.WriterTo(width, height, format)
	if err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	if _, err := w.WriteTo(&buf); err != nil {
		return nil, err
	}
	if format == "svg" {
		return bytes.ReplaceAll(buf.Bytes(), svgFont, svgFonts), nil
	}
	return buf.Bytes(), nil
}

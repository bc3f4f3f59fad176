package managefn

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/xml"
	"fmt"
	"image"
	"image/color"
	"regexp"
	"strconv"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"
	qrcode "github.com/skip2/go-qrcode"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/shortlink-dev/shortener/shared/apigw/apigwtest"
	"github.com/shortlink-dev/shortener/shared/link"
)

// qrAt points the QR fixture at another code.
func qrAt(ev events.APIGatewayProxyRequest, code string) events.APIGatewayProxyRequest {
	ev.PathParameters = map[string]string{"code": code}
	ev.Path = "/v1/links/" + code + "/qr"
	return ev
}

// matrix is the library's own encoding of content, quiet zone included:
// what every QR code we serve for content must show.
func matrix(t *testing.T, content string) [][]bool {
	t.Helper()
	q, err := qrcode.New(content, QRLevel)
	require.NoError(t, err)
	return q.Bitmap()
}

// pngModules decodes a PNG QR code and reads each module at the centre of
// its cell, where qrLayout puts it.
func pngModules(t *testing.T, img image.Image, n int) [][]bool {
	t.Helper()
	scale, offset := qrLayout(n, img.Bounds().Dx())
	require.NotZero(t, scale)
	got := make([][]bool, n)
	for y := range n {
		got[y] = make([]bool, n)
		for x := range n {
			// Every pixel of the cell, not only its centre: a module must
			// be a solid square.
			first := img.At(offset+x*scale, offset+y*scale)
			for py := range scale {
				for px := range scale {
					require.Equal(t, first, img.At(offset+x*scale+px, offset+y*scale+py), "module (%d,%d) is not solid", x, y)
				}
			}
			r, _, _, _ := first.RGBA()
			got[y][x] = r == 0
		}
	}
	return got
}

var svgRun = regexp.MustCompile(`M(\d+) (\d+)h(\d+)v1h-(\d+)z`)

// svgModules reads the dark modules back out of the SVG's path.
func svgModules(t *testing.T, d string, n int) [][]bool {
	t.Helper()
	got := make([][]bool, n)
	for y := range got {
		got[y] = make([]bool, n)
	}
	runs := svgRun.FindAllStringSubmatch(d, -1)
	require.NotEmpty(t, runs)
	total := 0
	for _, m := range runs {
		x, _ := strconv.Atoi(m[1])
		y, _ := strconv.Atoi(m[2])
		w, _ := strconv.Atoi(m[3])
		require.Equal(t, m[3], m[4])
		for i := range w {
			got[y][x+i] = true
		}
		total += len(m[0])
	}
	require.Equal(t, len(d), total, "the path is nothing but runs")
	return got
}

func TestQRPNG(t *testing.T) {
	tests := []struct {
		name  string
		alias string
		query []string
		size  int
		want  string // the short URL encoded
	}{
		{name: "default size", query: []string{}, size: 256, want: "https://sho.rt/" + code},
		{name: "explicit png", query: []string{"format", "png", "size", "300"}, size: 300, want: "https://sho.rt/" + code},
		{name: "smallest", query: []string{"size", "64"}, size: 64, want: "https://sho.rt/" + code},
		{name: "largest", query: []string{"size", "1024"}, size: 1024, want: "https://sho.rt/" + code},
		{name: "alias in its display form", alias: "Summer-Sale", query: []string{"size", "200"}, size: 200, want: "https://sho.rt/Summer-Sale"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t)
			c := code
			if tt.alias != "" {
				c = "summer-sale"
			}
			f.seed(t, c, tt.alias, ownerA)
			resp, err := f.h.Handle(context.Background(), apigwtest.WithQuery(qrAt(event(t, "qr-link.json"), c), tt.query...))
			require.NoError(t, err)
			require.Equal(t, 200, resp.StatusCode, resp.Body)
			assert.Equal(t, "image/png", resp.Headers["Content-Type"])
			assert.Equal(t, "private, max-age=3600", resp.Headers["Cache-Control"])
			assert.Equal(t, fmt.Sprintf("inline; filename=%q", c+".png"), resp.Headers["Content-Disposition"])
			require.True(t, resp.IsBase64Encoded, "binary bodies travel base64-encoded")
			raw, err := base64.StdEncoding.DecodeString(resp.Body)
			require.NoError(t, err)

			img, format, err := image.Decode(bytes.NewReader(raw))
			require.NoError(t, err)
			assert.Equal(t, "png", format)
			assert.Equal(t, image.Rect(0, 0, tt.size, tt.size), img.Bounds())
			want := matrix(t, tt.want)
			assert.Equal(t, want, pngModules(t, img, len(want)), "the image shows the library's encoding of %s", tt.want)
			assert.Equal(t, color.RGBAModel.Convert(color.White), color.RGBAModel.Convert(img.At(0, 0)), "the quiet zone is white")
		})
	}
}

func TestQRSVG(t *testing.T) {
	f := newFixture(t)
	f.seed(t, code, "", ownerA)
	resp, err := f.h.Handle(context.Background(), apigwtest.WithQuery(event(t, "qr-link.json"), "format", "svg", "size", "320"))
	require.NoError(t, err)
	require.Equal(t, 200, resp.StatusCode, resp.Body)
	assert.Equal(t, "image/svg+xml", resp.Headers["Content-Type"])
	assert.Equal(t, "private, max-age=3600", resp.Headers["Cache-Control"])
	assert.False(t, resp.IsBase64Encoded)

	var doc struct {
		XMLName xml.Name `xml:"http://www.w3.org/2000/svg svg"`
		Width   int      `xml:"width,attr"`
		Height  int      `xml:"height,attr"`
		ViewBox string   `xml:"viewBox,attr"`
		Path    struct {
			D string `xml:"d,attr"`
		} `xml:"path"`
	}
	require.NoError(t, xml.Unmarshal([]byte(resp.Body), &doc), "well-formed SVG")
	assert.Equal(t, 320, doc.Width)
	assert.Equal(t, 320, doc.Height)
	want := matrix(t, "https://sho.rt/"+code)
	assert.Equal(t, fmt.Sprintf("0 0 %d %d", len(want), len(want)), doc.ViewBox)
	assert.Equal(t, want, svgModules(t, doc.Path.D, len(want)))
}

func TestQRRefusals(t *testing.T) {
	tests := []struct {
		name   string
		code   string
		query  []string
		owner  string
		method string
		status int
		field  string
	}{
		{name: "format gif", query: []string{"format", "gif"}, status: 400, field: "format"},
		{name: "format upper case", query: []string{"format", "PNG"}, status: 400, field: "format"},
		{name: "size below", query: []string{"size", "63"}, status: 400, field: "size"},
		{name: "size above", query: []string{"size", "1025"}, status: 400, field: "size"},
		{name: "size a word", query: []string{"size", "big"}, status: 400, field: "size"},
		{name: "size a fraction", query: []string{"size", "100.5"}, status: 400, field: "size"},
		{name: "bad size on an unknown code is still 400", code: "nOsuch1", query: []string{"size", "0"}, status: 400, field: "size"},
		{name: "someone else's link", owner: ownerB, status: 404},
		{name: "unknown code", code: "nOsuch1", status: 404},
		{name: "not a code", code: "a.b", status: 404},
		{name: "tombstone", code: "tombst1", status: 404},
		{name: "POST", method: "POST", status: 405},
		{name: "no API key", owner: "-", status: 401},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t)
			f.seed(t, code, "", ownerA)
			f.seed(t, "tombst1", "", ownerA)
			require.NoError(t, f.store.Delete(context.Background(), ownerA, "tombst1", 0,
				link.Tombstone{TombstonedAt: start, ReclaimAfter: start.Add(time.Hour), Reason: link.ReasonDeleted}))

			ev := event(t, "qr-link.json")
			if tt.code != "" {
				ev = qrAt(ev, tt.code)
			}
			if tt.query != nil {
				ev = apigwtest.WithQuery(ev, tt.query...)
			}
			switch tt.owner {
			case "":
			case "-":
				ev = as(ev, "")
			default:
				ev = as(ev, tt.owner)
			}
			if tt.method != "" {
				ev.HTTPMethod = tt.method
			}
			resp, err := f.h.Handle(context.Background(), ev)
			require.NoError(t, err)
			apigwtest.RequireProblem(t, resp, tt.status, tt.field)
			if tt.status == 405 {
				assert.Equal(t, "GET", resp.Headers["Allow"])
			}
		})
	}
}

func TestQRLayout(t *testing.T) {
	tests := []struct{ n, size, scale, offset int }{
		{n: 33, size: 256, scale: 7, offset: 12},
		{n: 33, size: 64, scale: 1, offset: 15},
		{n: 33, size: 33, scale: 1, offset: 0},
		{n: 33, size: 32, scale: 0, offset: 0},
		{n: 0, size: 64, scale: 0, offset: 0},
	}
	for _, tt := range tests {
		scale, offset := qrLayout(tt.n, tt.size)
		assert.Equal(t, [2]int{tt.scale, tt.offset}, [2]int{scale, offset}, "%d modules in %d px", tt.n, tt.size)
	}
	_, err := qrPNG(make([][]bool, 40), 39)
	assert.Error(t, err, "too few pixels for the modules")
}

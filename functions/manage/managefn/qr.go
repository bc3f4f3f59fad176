package managefn

// GET /v1/links/{code}/qr: a QR code of the link's short URL.
//
// The code encodes the short URL exactly as the API shows it, with no
// marker such as ?qr=1: the clicks pipeline counts clicks per code and
// does not count QR scans apart, so a marker would only make the edge
// cache one more variant of the path and the link longer to scan. A scan
// counts as an ordinary click.
//
// skip2/go-qrcode encodes the matrix (byte mode, recovery level Medium:
// 15 % of the symbol may be damaged or covered). Both formats are drawn
// here from the library's module matrix, so PNG and SVG always show the
// same symbol: the SVG is one path of rectangles (go-qrcode has no SVG
// writer, and a second library just for that would draw a second,
// possibly different, encoding), and the PNG scales every module to the
// same whole number of pixels, centred, rather than go-qrcode's own
// nearest-pixel resampling, whose modules differ in width by a pixel.

import (
	"bytes"
	"context"
	"encoding/base64"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"net/http"
	"strconv"
	"strings"

	"github.com/aws/aws-lambda-go/events"
	qrcode "github.com/skip2/go-qrcode"

	"github.com/shortlink-dev/shortener/shared/link"
)

// ResourceQR is the API Gateway resource of the QR code.
const ResourceQR = "/v1/links/{code}/qr"

// QR code sizes in pixels: the image is size by size.
const (
	DefaultQRSize = 256
	MinQRSize     = 64
	MaxQRSize     = 1024
)

// QRLevel is the error correction level of every QR code served.
const QRLevel = qrcode.Medium

// qrCacheControl lets the owner's browser keep the image: a link's short
// URL never changes. Private: the answer depends on the API key.
const qrCacheControl = "private, max-age=3600"

// qr answers GET /v1/links/{code}/qr?format=png|svg&size=. The query is
// checked before the lookup, so a 400 says nothing about the code.
func (h *Handler) qr(ctx context.Context, req *events.APIGatewayProxyRequest, owner string) (events.APIGatewayProxyResponse, error) {
	if req.HTTPMethod != http.MethodGet {
		return events.APIGatewayProxyResponse{}, methodNotAllowed("GET")
	}
	format := query(req, "format")
	if format == "" {
		format = "png"
	}
	if format != "png" && format != "svg" {
		return events.APIGatewayProxyResponse{}, &link.FieldError{Field: "format", Reason: fmt.Sprintf("must be png or svg, got %q", format)}
	}
	size := DefaultQRSize
	if v := query(req, "size"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < MinQRSize || n > MaxQRSize {
			return events.APIGatewayProxyResponse{}, &link.FieldError{Field: "size",
				Reason: fmt.Sprintf("must be a whole number of pixels from %d to %d", MinQRSize, MaxQRSize)}
		}
		size = n
	}
	l, err := h.owned(ctx, owner, req.PathParameters["code"])
	if err != nil {
		return events.APIGatewayProxyResponse{}, err
	}
	shortURL := h.Present.Link(l).ShortURL
	q, err := qrcode.New(shortURL, QRLevel)
	if err != nil {
		return events.APIGatewayProxyResponse{}, fmt.Errorf("encode %q as a QR code: %w", shortURL, err)
	}
	bitmap := q.Bitmap()
	if len(bitmap) > size {
		return events.APIGatewayProxyResponse{}, &link.FieldError{Field: "size",
			Reason: fmt.Sprintf("must be at least %d pixels for this link's %d modules", len(bitmap), len(bitmap))}
	}
	headers := map[string]string{
		"Cache-Control":       qrCacheControl,
		"Content-Disposition": fmt.Sprintf("inline; filename=%q", l.Code+"."+format),
	}
	if format == "svg" {
		headers["Content-Type"] = "image/svg+xml"
		return events.APIGatewayProxyResponse{StatusCode: http.StatusOK, Headers: headers, Body: qrSVG(bitmap, size)}, nil
	}
	b, err := qrPNG(bitmap, size)
	if err != nil {
		return events.APIGatewayProxyResponse{}, err
	}
	headers["Content-Type"] = "image/png"
	// Binary bodies travel base64-encoded; API Gateway decodes them for
	// the client (the API lists image/png as a binary media type).
	return events.APIGatewayProxyResponse{StatusCode: http.StatusOK, Headers: headers,
		Body: base64.StdEncoding.EncodeToString(b), IsBase64Encoded: true}, nil
}

// qrLayout places a bitmap of n by n modules (quiet zone included) in a
// square image of size pixels: each module is scale pixels, and the
// symbol starts offset pixels from the top and left edges. The pixels
// left over widen the quiet zone. scale is 0 when size < n.
func qrLayout(n, size int) (scale, offset int) {
	if n == 0 || size < n {
		return 0, 0
	}
	scale = size / n
	return scale, (size - scale*n) / 2
}

// qrPNG draws bitmap (bitmap[y][x] true for a dark module, as go-qrcode's
// Bitmap returns it) as a size by size black-on-white PNG.
func qrPNG(bitmap [][]bool, size int) ([]byte, error) {
	scale, offset := qrLayout(len(bitmap), size)
	if scale == 0 {
		return nil, fmt.Errorf("%d pixels cannot draw %d modules", size, len(bitmap))
	}
	img := image.NewPaletted(image.Rect(0, 0, size, size), color.Palette{color.White, color.Black})
	for y, row := range bitmap {
		for x, dark := range row {
			if !dark {
				continue
			}
			for py := offset + y*scale; py < offset+(y+1)*scale; py++ {
				start := img.PixOffset(offset+x*scale, py)
				for i := range scale {
					img.Pix[start+i] = 1
				}
			}
		}
	}
	var buf bytes.Buffer
	if err := (&png.Encoder{CompressionLevel: png.BestCompression}).Encode(&buf, img); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// qrSVG draws bitmap as a size by size SVG: a white square and one black
// path, a rectangle per run of dark modules in a row, in module units
// (the viewBox scales them), with crisp edges so no anti-aliasing greys
// the module borders.
func qrSVG(bitmap [][]bool, size int) string {
	n := len(bitmap)
	var b strings.Builder
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d" shape-rendering="crispEdges">`, size, size, n, n)
	fmt.Fprintf(&b, `<rect width="%d" height="%d" fill="#fff"/><path fill="#000" d="`, n, n)
	for y, row := range bitmap {
		for x := 0; x < len(row); {
			if !row[x] {
				x++
				continue
			}
			run := 1
			for x+run < len(row) && row[x+run] {
				run++
			}
			fmt.Fprintf(&b, "M%d %dh%dv1h-%dz", x, y, run, run)
			x += run
		}
	}
	b.WriteString(`"/></svg>`)
	return b.String()
}

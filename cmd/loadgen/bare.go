package main

import (
	"net"
	"net/http"
)

// bareServer is the redirect baseline: net/http and a fixed 302.
type bareServer struct {
	*http.Server
	listener net.Listener
}

func listenBare() (*bareServer, string, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, "", err
	}
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		h := w.Header()
		h["Location"] = []string{"https://example.com/"}
		h["Cache-Control"] = []string{"public, max-age=0, s-maxage=86400"}
		w.WriteHeader(http.StatusFound)
	})}
	return &bareServer{Server: srv, listener: ln}, "http://" + ln.Addr().String(), nil
}

// The Go echo bot of the end-to-end benchmark: net/http server and client, stdlib only.
//
//	go build -o go_echo . && ./go_echo --port P --path /webhook --secret S --token T --api-url URL
//
// The same bot as the Python contenders: a webhook update with a text message is
// acknowledged at once (200), then, 10 ms later, its text is sent back with
// sendMessage to the API base (the benchmark's fake Bot API). The secret header is
// compared in constant time; a wrong one is a 403.
package main

import (
	"bytes"
	"context"
	"crypto/subtle"
	"encoding/json"
	"flag"
	"io"
	"log"
	"net"
	"net/http"
	"os"
	"os/signal"
	"strconv"
	"syscall"
	"time"
)

type update struct {
	Message *struct {
		Chat struct {
			ID int64 `json:"id"`
		} `json:"chat"`
		Text *string `json:"text"`
	} `json:"message"`
}

type sendMessage struct {
	ChatID int64  `json:"chat_id"`
	Text   string `json:"text"`
}

func main() {
	host := flag.String("host", "127.0.0.1", "listen address")
	port := flag.Int("port", 8080, "listen port")
	path := flag.String("path", "/webhook", "webhook path")
	secret := flag.String("secret", "", "X-Telegram-Bot-Api-Secret-Token")
	token := flag.String("token", "", "bot token")
	apiURL := flag.String("api-url", "", "Bot API base URL")
	flag.String("loop", "", "ignored (the Python bots' event loop option)")
	flag.Parse()

	endpoint := *apiURL + "/bot" + *token + "/sendMessage"
	client := &http.Client{
		Timeout: 60 * time.Second,
		Transport: &http.Transport{
			MaxIdleConns:        1000,
			MaxIdleConnsPerHost: 1000,
			IdleConnTimeout:     90 * time.Second,
		},
	}
	expected := []byte(*secret)

	echo := func(chatID int64, text string) {
		time.Sleep(10 * time.Millisecond)
		body, _ := json.Marshal(sendMessage{ChatID: chatID, Text: text})
		resp, err := client.Post(endpoint, "application/json", bytes.NewReader(body))
		if err != nil {
			log.Printf("sendMessage: %v", err)
			return
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
	}

	mux := http.NewServeMux()
	mux.HandleFunc(*path, func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost {
			w.WriteHeader(http.StatusMethodNotAllowed)
			return
		}
		given := []byte(r.Header.Get("X-Telegram-Bot-Api-Secret-Token"))
		if subtle.ConstantTimeCompare(given, expected) != 1 {
			w.WriteHeader(http.StatusForbidden)
			return
		}
		var u update
		if err := json.NewDecoder(r.Body).Decode(&u); err != nil {
			w.WriteHeader(http.StatusBadRequest)
			return
		}
		if u.Message != nil && u.Message.Text != nil {
			go echo(u.Message.Chat.ID, *u.Message.Text)
		}
		w.WriteHeader(http.StatusOK)
	})

	server := &http.Server{Addr: net.JoinHostPort(*host, strconv.Itoa(*port)), Handler: mux}
	stop := make(chan os.Signal, 1)
	signal.Notify(stop, syscall.SIGTERM, syscall.SIGINT)
	go func() {
		<-stop
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		server.Shutdown(ctx)
	}()
	if err := server.ListenAndServe(); err != nil && err != http.ErrServerClosed {
		log.Fatal(err)
	}
}

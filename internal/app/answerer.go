package app

import (
	"fmt"

	"concierge/internal/chat"
	"concierge/internal/config"
	"concierge/internal/llm"
)

// newAnswerer builds the configured answerer; the extractive one needs no
// account anywhere and is the default.
func newAnswerer(cfg config.Config, opts Options) (chat.Answerer, error) {
	if opts.Answerer != nil {
		return opts.Answerer, nil
	}
	switch cfg.LLMProvider {
	case "", "extractive":
		return chat.Extractive{}, nil
	}
	temp := cfg.LLMTemperature
	m, err := llm.New(llm.Config{Provider: cfg.LLMProvider, BaseURL: cfg.LLMBaseURL, APIKey: cfg.LLMAPIKey.Reveal(),
		Model: cfg.LLMModel, MaxTokens: cfg.LLMMaxTokens, Temperature: &temp, Timeout: cfg.LLMTimeout,
		MaxAttempts: cfg.LLMMaxAttempts, Clock: opts.Clock}, nil) // the operator's endpoint: llm's own client
	if err != nil {
		return nil, fmt.Errorf("answerer: %w", err)
	}
	return chat.Model{LLM: m}, nil
}

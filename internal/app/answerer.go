package app

import (
	"fmt"

	"concierge/internal/chat"
	"concierge/internal/config"
	"concierge/internal/llm"
	"concierge/internal/retrieval"
)

// newModel builds the configured language model; nil with the extractive
// default, which needs no account anywhere.
func newModel(cfg config.Config, opts Options) (llm.Model, error) {
	switch cfg.LLMProvider {
	case "", "extractive":
		return nil, nil
	}
	temp := cfg.LLMTemperature
	m, err := llm.New(llm.Config{Provider: cfg.LLMProvider, BaseURL: cfg.LLMBaseURL, APIKey: cfg.LLMAPIKey.Reveal(),
		Model: cfg.LLMModel, MaxTokens: cfg.LLMMaxTokens, Temperature: &temp, Timeout: cfg.LLMTimeout,
		MaxAttempts: cfg.LLMMaxAttempts, Clock: opts.Clock}, nil) // the operator's endpoint: llm's own client
	if err != nil {
		return nil, fmt.Errorf("language model: %w", err)
	}
	return m, nil
}

// newAnswerer is the chat's answerer: the model when one is configured,
// else the extractive one.
func newAnswerer(m llm.Model, opts Options) chat.Answerer {
	switch {
	case opts.Answerer != nil:
		return opts.Answerer
	case m == nil:
		return chat.Extractive{}
	}
	return chat.Model{LLM: m}
}

// newEmbedder is the dense retrieval's embeddings client when
// CONCIERGE_EMBEDDINGS_MODEL is set, else nil (keyword retrieval).
func newEmbedder(cfg config.Config, opts Options) retrieval.Embedder {
	if cfg.EmbeddingsModel == "" {
		return nil
	}
	client := opts.EmbeddingsClient
	if client == nil {
		client = retrieval.NewEmbeddingsClient(cfg.EmbeddingsTimeout)
	}
	return retrieval.NewOpenAIEmbedder(cfg.EmbeddingsBaseURL, cfg.EmbeddingsAPIKey.Reveal(), cfg.EmbeddingsModel, client)
}

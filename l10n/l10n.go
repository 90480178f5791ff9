// Package l10n writes what the server tells a person (notifications) in
// that person's language. A Text is an English message and its arguments;
// In renders it with golang.org/x/text/message for a language, from this
// package's catalog (English and Spanish), numbers formatted as that
// language writes them. A message the catalog lacks in a language is
// written in English.
package l10n

import (
	"strings"

	"golang.org/x/text/language"
	"golang.org/x/text/message"
	"golang.org/x/text/message/catalog"
)

// Text is a message for a person: one or more English formats (the
// catalog's keys) with their arguments. Arguments that are Texts are
// rendered in the same language first. The zero Text is empty.
type Text struct {
	parts []part
}

type part struct {
	format string
	args   []any
	plain  bool
}

// T is the message format (a catalog key, in English) with args.
func T(format string, args ...any) Text {
	return Text{parts: []part{{format: format, args: args}}}
}

// Plain is s as written, in every language: what a person wrote.
func Plain(s string) Text {
	return Text{parts: []part{{format: s, plain: true}}}
}

// And is t followed by the message format with args.
func (t Text) And(format string, args ...any) Text {
	return Text{parts: append(t.parts[:len(t.parts):len(t.parts)], part{format: format, args: args})}
}

// String is t in English.
func (t Text) String() string { return t.In("en") }

// In renders t in the language of the BCP 47 tag locale: Spanish for
// "es", "es-MX"…, else English.
func (t Text) In(locale string) string {
	p := message.NewPrinter(languageOf(locale), message.Catalog(cat))
	var b strings.Builder
	for _, pt := range t.parts {
		if pt.plain {
			b.WriteString(pt.format)
			continue
		}
		args := make([]any, len(pt.args))
		for i, a := range pt.args {
			if sub, ok := a.(Text); ok {
				a = sub.In(locale)
			}
			args[i] = a
		}
		b.WriteString(p.Sprintf(pt.format, args...))
	}
	return b.String()
}

// Translations is t in every language of the catalog, by primary
// language subtag: "en" and "es".
func (t Text) Translations() map[string]string {
	return map[string]string{"en": t.In("en"), "es": t.In("es")}
}

// cat holds the translations; a key it lacks in a language (every key in
// English) is its own format.
var cat = func() *catalog.Builder {
	b := catalog.NewBuilder(catalog.Fallback(language.English))
	for en, es := range spanish {
		if err := b.SetString(language.Spanish, en, es); err != nil {
			panic(err)
		}
	}
	return b
}()

// languageOf is the catalog's language for locale.
func languageOf(locale string) language.Tag {
	if t, err := language.Parse(locale); err == nil {
		if base, _ := t.Base(); base.String() == "es" {
			return language.Spanish
		}
	}
	return language.English
}

package l10n

import "golang.org/x/text/language"

// categories names the default scorecard's categories (their codes, as
// audits carry them) in English and Spanish: what the dashboard shows for
// them too (web/src/i18n.ts, category.*).
var categories = map[string]map[language.Tag]string{
	"OPENING":    {language.English: "Opening", language.Spanish: "Apertura"},
	"SKILLS":     {language.English: "Skills", language.Spanish: "Habilidades"},
	"COMPLIANCE": {language.English: "Compliance", language.Spanish: "Cumplimiento"},
	"CLOSING":    {language.English: "Closing", language.Spanish: "Cierre"},
}

// Category is the scorecard category code in the language of locale (BCP
// 47): a category of the default scorecard by its name, any other as its
// scorecard writes it.
func Category(code, locale string) string {
	if names, ok := categories[code]; ok {
		return names[languageOf(locale)]
	}
	return code
}

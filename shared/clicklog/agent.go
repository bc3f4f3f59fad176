package clicklog

import "strings"

// Device types of Agent.Device.
const (
	DeviceDesktop = "desktop"
	DeviceMobile  = "mobile"
	DeviceTablet  = "tablet"
	DeviceBot     = "bot"
	DeviceOther   = "other"
)

// Agent is what a User-Agent says about the viewer: the kind of device, the
// operating system and the browser, each one of a small fixed set of
// names ("other" when the User-Agent names none we know).
type Agent struct {
	Device, OS, Browser string
}

// AgentOther is what an empty or unknown User-Agent classifies as.
var AgentOther = Agent{Device: DeviceOther, OS: "other", Browser: "other"}

// ClassifyAgent reads a User-Agent. It is deliberately small: a handful of
// substring tests, in the order that tells apart the browsers built on one
// another (Edge and Opera and Samsung Internet say Chrome, Chrome says
// Safari, every iOS browser says Safari and Mobile). bot is the click's
// bot verdict (Classify): a bot's device is DeviceBot, its OS and browser
// are read as for anyone. Every result is one of the names in Devices,
// OperatingSystems and Browsers.
func ClassifyAgent(ua string, bot bool) Agent {
	a := Agent{Device: DeviceOther, OS: agentOS(ua), Browser: agentBrowser(ua)}
	switch {
	case bot:
		a.Device = DeviceBot
	case has(ua, "iPad") || has(ua, "Tablet") || has(ua, "Kindle") || has(ua, "Silk/") ||
		a.OS == "Android" && !has(ua, "Mobile"):
		a.Device = DeviceTablet
	case has(ua, "Mobi") || has(ua, "iPhone") || has(ua, "iPod") || has(ua, "Windows Phone"):
		a.Device = DeviceMobile
	case a.OS == "Windows" || a.OS == "macOS" || a.OS == "Linux" || a.OS == "ChromeOS":
		a.Device = DeviceDesktop
	}
	return a
}

// Devices, OperatingSystems and Browsers are every name ClassifyAgent
// gives. Treat them as read-only.
var (
	Devices          = []string{DeviceDesktop, DeviceMobile, DeviceTablet, DeviceBot, DeviceOther}
	OperatingSystems = []string{"Windows", "macOS", "iOS", "Android", "ChromeOS", "Linux", "other"}
	Browsers         = []string{"Chrome", "Safari", "Firefox", "Edge", "Opera", "Samsung Internet", "other"}
)

func has(s, sub string) bool { return strings.Contains(s, sub) }

func agentOS(ua string) string {
	switch {
	case has(ua, "Windows"):
		return "Windows"
	case has(ua, "iPhone") || has(ua, "iPad") || has(ua, "iPod"):
		return "iOS"
	case has(ua, "Android"):
		return "Android"
	case has(ua, "CrOS"):
		return "ChromeOS"
	case has(ua, "Macintosh") || has(ua, "Mac OS X"):
		return "macOS"
	case has(ua, "Linux") || has(ua, "X11"):
		return "Linux"
	}
	return "other"
}

func agentBrowser(ua string) string {
	switch {
	case has(ua, "Edg/") || has(ua, "EdgA/") || has(ua, "EdgiOS/") || has(ua, "Edge/"):
		return "Edge"
	case has(ua, "OPR/") || has(ua, "Opera"):
		return "Opera"
	case has(ua, "SamsungBrowser/"):
		return "Samsung Internet"
	case has(ua, "Firefox/") || has(ua, "FxiOS/"):
		return "Firefox"
	case has(ua, "Chrome/") || has(ua, "CriOS/") || has(ua, "Chromium/"):
		return "Chrome"
	case has(ua, "Safari/") && (has(ua, "Version/") || has(ua, "Mobile/")):
		return "Safari"
	}
	return "other"
}

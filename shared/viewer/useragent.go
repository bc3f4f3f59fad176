package viewer

import "strings"

// Device is what CloudFront's device type headers say of a viewer.
type Device struct {
	Mobile, Tablet, Desktop, SmartTV bool
	IOS, Android                     bool
}

// FromUserAgent classifies a User-Agent into CloudFront's device type
// headers, as the local edge adds them. CloudFront documents only that it
// derives them from the User-Agent
// (https://docs.aws.amazon.com/AmazonCloudFront/latest/DeveloperGuide/adding-cloudfront-headers.html,
// "Headers for determining the viewer's device type"); this follows the
// tokens browsers send: exactly one of Mobile, Tablet, SmartTV and Desktop
// is true, and a User-Agent nothing marks as another device is a desktop.
func FromUserAgent(ua string) Device {
	var d Device
	has := func(tokens ...string) bool {
		for _, t := range tokens {
			if strings.Contains(ua, t) {
				return true
			}
		}
		return false
	}
	d.IOS = has("iPhone", "iPad", "iPod")
	d.Android = has("Android")
	switch {
	case has("SmartTV", "SMART-TV", "Smart-TV", "AppleTV", "GoogleTV", "HbbTV", "CrKey", "Roku", "BRAVIA", "Web0S"):
		d.SmartTV = true
	case has("iPad", "Tablet", "Kindle", "Silk/") || d.Android && !has("Mobile"):
		d.Tablet = true
	case has("iPhone", "iPod", "Mobile", "Windows Phone", "BlackBerry", "Opera Mini"):
		d.Mobile = true
	default:
		d.Desktop = true
	}
	return d
}

// Headers are d as CloudFront sends them: each device header "true" or
// "false", in DeviceHeaders' order.
func (d Device) Headers() [][2]string {
	b := func(v bool) string {
		if v {
			return "true"
		}
		return "false"
	}
	return [][2]string{
		{AndroidHeader, b(d.Android)}, {DesktopHeader, b(d.Desktop)}, {IOSHeader, b(d.IOS)},
		{MobileHeader, b(d.Mobile)}, {SmartTVHeader, b(d.SmartTV)}, {TabletHeader, b(d.Tablet)},
	}
}

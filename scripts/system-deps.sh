#!/usr/bin/env bash
# Debian packages the browser tests need: Chromium (Playwright drives it; its own
# browser download does not work offline) and a CJK font (or every Chinese character
# in a screenshot is a box), and gettext (manage.py makemessages / compilemessages for the
# zh_Hans and en catalogues). Installs only what is missing, and only as root.
set -euo pipefail
missing=()
[[ -x /usr/bin/chromium ]] || missing+=(chromium)
fc-list 2>/dev/null | grep -qi -e "wenquanyi" -e "noto sans cjk" || missing+=(fonts-wqy-microhei)
command -v msgfmt >/dev/null && command -v xgettext >/dev/null || missing+=(gettext)
if ((${#missing[@]} == 0)); then exit 0; fi
if [[ $(id -u) != 0 ]]; then
  echo ">> missing Debian packages ${missing[*]} (not root: not installing)"; exit 1
fi
echo ">> installing Debian packages: ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq >/dev/null
apt-get install -y -qq --no-install-recommends "${missing[@]}" fontconfig >/dev/null

# frozen_string_literal: true
#
# The oracle for @forgefold/cron: answers as the platform's Gitlab::Ci::CronParser would, using whatever fugit
# (and ActiveSupport, for the Rails zone names) this Ruby has. Reads one JSON object a line on stdin:
#   {"id": 1, "cron": "*/5 * * * *", "tz": "Europe/Paris", "from": 1641808830000}
#   {"id": 2, "mapping": true}
# and prints one JSON object a line: cron_valid, tz_valid, next (epoch ms, or null when fugit answers nil)
# or error (the class of what was raised), and the fugit, et-orbi and tzinfo versions on the first line.
# Times are in UTC, the instance zone: TZ=UTC makes it EtOrbi's local zone too.
ENV['TZ'] = 'UTC'
require 'json'
require 'fugit'
begin
  require 'active_support'
  require 'active_support/values/time_zone'
rescue LoadError
  nil
end

MAPPING = defined?(ActiveSupport::TimeZone::MAPPING) ? ActiveSupport::TimeZone::MAPPING : nil

def timezone_name(tz)
  return tz unless MAPPING # without ActiveSupport the caller maps Rails names itself

  ActiveSupport::TimeZone.find_tzinfo(tz).name
rescue TZInfo::InvalidTimezoneIdentifier
  tz
end

def attempt
  [yield, nil]
rescue StandardError => e
  [nil, e.class.name]
end

$stdout.sync = true
puts({ versions: { fugit: Fugit::VERSION, et_orbi: EtOrbi::VERSION, tzinfo: TZInfo::VERSION, activesupport: MAPPING ? ActiveSupport::VERSION::STRING : nil } }.to_json)

$stdin.each_line do |line|
  next if line.strip.empty?

  req = JSON.parse(line)
  if req['mapping']
    puts({ id: req['id'], mapping: MAPPING }.to_json)
    next
  end
  cron = req['cron']
  tz = timezone_name(req['tz'])
  cron_valid, cron_error = attempt { !Fugit::Cron.parse("#{cron} UTC").nil? }
  tz_valid, tz_error = attempt { !Fugit::Cron.parse("* * * * * #{tz}").nil? }
  out = { id: req['id'], cron_valid: cron_valid, tz_valid: tz_valid, cron_error: cron_error, tz_error: tz_error }
  if req['from']
    from = Time.at(Rational(req['from'], 1000)).utc
    nxt, error = attempt do
      parsed = Fugit::Cron.parse("#{cron} #{tz}")
      parsed && (parsed.next_time(from).to_f * 1000).round
    end
    out[:next] = nxt
    out[:error] = error
  end
  puts out.to_json
end

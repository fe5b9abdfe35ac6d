// One conversation of the fixture: a person talking to their assistant over 15–25 dated sessions,
// with the facts, events and distractors placed in them, and the questions whose evidence is those
// turns. make-fixture.mjs calls it once per conversation with the one seeded PRNG, so the order of
// every draw here is part of the output.
import {
  acknowledgements,
  bands,
  cars,
  cities,
  employers,
  foods,
  friendNames,
  genres,
  greetings,
  hobbies,
  languages,
  months,
  partnerNames,
  people,
  petNames,
  pets,
  races,
  roles,
  siblingNames,
  smallTalk,
  trips,
} from "./fixture-tables.mjs";

const dayMs = 86_400_000;

function isoDate(ms) {
  return new Date(ms).toISOString().slice(0, 10);
}

function monthYear(ms) {
  const d = new Date(ms);
  return `${months[d.getUTCMonth()]} ${d.getUTCFullYear()}`;
}

/**
 * The conversation number `index` (0-based): `{ id, user, sessions, questions }`, every choice drawn
 * from `r`, make-fixture.mjs's seeded PRNG (`int`, `pick`, `between`, `chance`, `some`).
 */
export function makeConversation(index, r) {
  const name = people[index];
  const [city1, city2, city3, cityDistractor] = r.some(cities, 4);
  const [employer1, employer2] = r.some(employers, 2);
  const [role1, role2] = r.some(roles, 2);
  const pet = r.pick(pets);
  const [petName, colleaguePetName] = r.some(petNames, 2);
  const [sibling] = r.some(siblingNames, 1);
  const siblingRelation = ["Paul", "Felix", "Arjun", "Theo", "Bram", "Kofi"].includes(sibling) ? "brother" : "sister";
  const siblingPartner = r.pick(partnerNames);
  const siblingPartnerJob = r.pick(["firefighter", "architect", "chef", "pilot", "vet", "electrician", "dentist"]);
  const [friend] = r.some(friendNames, 1);
  const friendJob = r.pick([
    "a midwife",
    "a sound engineer",
    "a lawyer",
    "a park ranger",
    "a pastry chef",
    "a carpenter",
  ]);
  const [trip1, trip2] = r.some(trips, 2);
  const [hobby1, hobby2] = r.some(hobbies, 2);
  const band = r.pick(bands);
  const [car, carDistractor] = r.some(cars, 2);
  const language = r.pick(languages);
  const [food1, food2] = r.some(foods, 2);
  const race = r.pick(races);
  const sessionCount = r.between(15, 25);
  const moveTwice = r.chance(0.5);

  // The session dates: a start in 2023, then gaps of 4–28 days.
  const start = Date.UTC(2023, r.int(6), 1 + r.int(27), 18, 0);
  const dates = [start];
  for (let s = 1; s < sessionCount; s++)
    dates.push(dates[s - 1] + r.between(4, 28) * dayMs + r.between(-3, 3) * 3_600_000);

  // Which session each event lands in (distinct, spread over the conversation).
  const slots = r.some([...Array(sessionCount).keys()].slice(1), Math.min(sessionCount - 1, 14));
  const at = {};
  const order = [
    "sibling",
    "friendJob",
    "pet",
    "move",
    "hobby1",
    "trip1",
    "job",
    "band",
    "car",
    "language",
    "food2",
    "race",
    "siblingPartner",
    "trip2",
  ];
  order.forEach((event, i) => (at[event] = slots[i % slots.length]));
  // Events that need an order: the first fact before its change, the sibling before the partner.
  const sortPair = (a, b) => {
    if (at[a] > at[b]) [at[a], at[b]] = [at[b], at[a]];
  };
  sortPair("sibling", "siblingPartner");
  sortPair("trip1", "trip2");
  at.hobby2 = Math.min(sessionCount - 1, at.hobby1 + r.between(2, 5));
  at.move2 = moveTwice ? Math.min(sessionCount - 1, at.move + r.between(3, 6)) : undefined;
  at.food1 = 0;
  at.city1 = 0;
  at.job1 = 0;

  const sessions = dates.map((date, s) => ({
    id: `s${String(s + 1).padStart(2, "0")}`,
    date: new Date(date).toISOString(),
    turns: [],
  }));
  const evidence = {};
  const say = (s, speaker, text, key) => {
    const session = sessions[s];
    const id = `c${String(index + 1).padStart(2, "0")}:${session.id}:t${String(session.turns.length + 1).padStart(2, "0")}`;
    session.turns.push({ id, speaker, text });
    if (key) evidence[key] = id;
    return id;
  };
  const userThen = (s, text, key, reply = r.pick(acknowledgements)) => {
    say(s, "user", text, key);
    say(s, "assistant", reply);
  };

  const facts = {
    city1: (s) =>
      userThen(
        s,
        r.pick([
          `I live in ${city1} with my partner, in a small flat near the river.`,
          `We've been in ${city1} for about three years now, I like it here.`,
        ]),
        "city1",
      ),
    job1: (s) =>
      userThen(
        s,
        r.pick([`I work as a ${role1} at ${employer1}.`, `My job is ${role1} at ${employer1}, it pays the bills.`]),
        "job1",
      ),
    food1: (s) =>
      userThen(
        s,
        r.pick([
          `My favourite food at the moment is ${food1}, I could eat it every day.`,
          `Honestly, ${food1} is my comfort food, I order it every Friday.`,
        ]),
        "food1",
      ),
    sibling: (s) =>
      userThen(
        s,
        r.pick([
          `My ${siblingRelation} ${sibling} is coming to stay with us next week.`,
          `I had a long call with my ${siblingRelation} ${sibling}, we don't talk often enough.`,
        ]),
        "sibling",
      ),
    siblingPartner: (s) =>
      userThen(
        s,
        r
          .pick([
            `${sibling} called, her husband ${siblingPartner} just got a job as a ${siblingPartnerJob}.`,
            `Dinner at ${sibling}'s place, ${siblingPartner} cooked, he's training to be a ${siblingPartnerJob}.`,
          ])
          .replace(siblingRelation === "brother" ? "her husband" : "\u0000", "his wife")
          .replace(siblingRelation === "brother" ? "he's" : "\u0000", "she's"),
        "siblingPartner",
      ),
    friendJob: (s) =>
      userThen(
        s,
        r.pick([
          `My friend ${friend} works as ${friendJob}, she has the wildest stories.`,
          `Had lunch with ${friend}, who's ${friendJob} now, she loves it.`,
        ]),
        "friendJob",
      ),
    pet: (s) =>
      userThen(
        s,
        r.pick([
          `Big news: we adopted a ${pet.breed} ${pet.young} from the shelter! We named ${pet.species === "cat" ? "her" : "him"} ${petName}.`,
          `We brought home a little ${pet.breed} yesterday, ${petName} is already sleeping on my feet.`,
        ]),
        "pet",
      ),
    move: (s) =>
      userThen(
        s,
        r.pick([
          `We moved to ${city2} last weekend, the boxes are everywhere.`,
          `It's official, we've relocated to ${city2}. New flat, new neighbourhood.`,
        ]),
        "move",
        "How exciting! How are you settling into the new place?",
      ),
    move2: (s) =>
      userThen(
        s,
        r.pick([
          `Another move! We left ${city2} and now live in ${city3}.`,
          `We packed up again and moved to ${city3}, hopefully for good this time.`,
        ]),
        "move2",
      ),
    hobby1: (s) => userThen(s, `I ${hobby1.start}.`, "hobby1"),
    hobby2: (s) => userThen(s, `New thing: I ${hobby2.start}.`, "hobby2"),
    trip1: (s) =>
      userThen(
        s,
        r.pick([
          `Just got back from ${trip1.place}! The highlight was ${trip1.thing}.`,
          `We spent ten days in ${trip1.place}, ${trip1.country} and the best part was ${trip1.thing}.`,
        ]),
        "trip1",
      ),
    trip2: (s) => userThen(s, `Back from a week in ${trip2.place}. We did ${trip2.thing}, unforgettable.`, "trip2"),
    job: (s) =>
      userThen(
        s,
        r.pick([
          `I accepted the offer: I'm starting as ${role2 === "UX researcher" ? "a" : "a"} ${role2} at ${employer2} on Monday.`,
          `Today was my first day at ${employer2}, I'm their new ${role2}.`,
        ]),
        "job2",
      ),
    band: (s) =>
      userThen(
        s,
        r.pick([
          `Went to see ${band} live on Saturday, it was incredible.`,
          `The ${band} concert last night was the best gig I've been to in years.`,
        ]),
        "band",
      ),
    car: (s) =>
      userThen(
        s,
        r.pick([
          `We finally bought a car, a second-hand ${car}.`,
          `Picked up our new ${car} today, no more borrowing my ${siblingRelation}'s.`,
        ]),
        "car",
      ),
    language: (s) =>
      userThen(
        s,
        r.pick([
          `I started ${language} lessons with a tutor twice a week.`,
          `I've been learning ${language} on an app every morning, and I booked a tutor.`,
        ]),
        "language",
      ),
    food2: (s) => userThen(s, `I'm completely obsessed with ${food2} lately, it's my new favourite food.`, "food2"),
    race: (s) => userThen(s, `I ran my first ${race.name} on Sunday, ${race.distance} in the rain!`, "race"),
  };
  /** Distractors: turns that share words with a fact but hold another answer. */
  const distractors = [
    () => `My colleague adopted a ${pet.species} called ${colleaguePetName}, she shows us photos every day.`,
    () => `A friend of mine just moved to ${cityDistractor}, she says the rent is crazy.`,
    () => `Watched a travel documentary about ${trip1.country}, it looked beautiful.`,
    () => `My neighbour bought a ${carDistractor}, he keeps talking about the mileage.`,
    () => `${friend} ran a ${r.pick(races).name} last month, I was cheering at the finish.`,
    () => `My boss at ${employer1} keeps talking about restructuring, not sure what it means for us.`,
    () =>
      `My ${siblingRelation} ${sibling} sent a photo of her garden, it's overflowing with flowers.`.replace(
        siblingRelation === "brother" ? "her" : "\u0000",
        "his",
      ),
    () => `I was reading about ${language} grammar and it's harder than I thought.`,
    () => `A coworker said the ${band} tickets sold out in minutes, people are crazy about them.`,
    () => `The vet's waiting room was full of dogs and cats today, I was only there to pick up a leaflet.`,
    () => `I keep thinking about moving somewhere warmer one day.`,
    () => `Someone at the office is selling their old ${car}, tempting but we don't need two.`,
  ];

  const placed = new Set();
  for (let s = 0; s < sessionCount; s++) {
    const [hello, reply] = r.pick(greetings);
    say(s, "user", hello);
    say(s, "assistant", reply);
    const events = Object.entries(at)
      .filter(([, slot]) => slot === s)
      .map(([event]) => event);
    const fillers = r.between(2, 5);
    const plan = [...events.map((e) => ({ fact: e })), ...Array.from({ length: fillers }, () => ({ filler: true }))];
    // Facts are not always first: shuffle the fillers around them.
    for (let i = plan.length - 1; i > 0; i--) {
      const j = r.int(i + 1);
      [plan[i], plan[j]] = [plan[j], plan[i]];
    }
    for (const step of plan) {
      if (step.fact) {
        facts[step.fact](s);
        placed.add(step.fact);
      } else if (r.chance(0.35)) userThen(s, r.pick(distractors)());
      else userThen(s, r.pick(smallTalk));
    }
    say(
      s,
      "user",
      r.pick([
        "Anyway, that's my update.",
        "Okay, I should go. Talk soon!",
        "Thanks for listening.",
        "Right, back to it.",
      ]),
    );
    say(s, "assistant", r.pick(["Talk soon!", "Anytime. Take care!", "Good luck with everything.", "Bye for now!"]));
  }

  const dateOf = (key) => sessions.find((session) => session.turns.some((t) => t.id === evidence[key])).date;
  const monthOf = (key) => monthYear(Date.parse(dateOf(key)));
  const cityAt = (slot) =>
    at.move2 !== undefined && slot >= at.move2
      ? { city: city3, key: "move2" }
      : slot >= at.move
        ? { city: city2, key: "move" }
        : { city: city1, key: "city1" };
  const jobAt = (slot) =>
    slot >= at.job ? { employer: employer2, key: "job2" } : { employer: employer1, key: "job1" };
  const questions = [];
  const ask = (kind, text, keys, answer) =>
    questions.push({
      id: `c${String(index + 1).padStart(2, "0")}:q${String(questions.length + 1).padStart(2, "0")}`,
      kind,
      text,
      evidence: keys.map((k) => evidence[k]),
      answer,
    });

  // single fact
  ask("single", r.pick([`What's my ${pet.species}'s name?`, `What did we name the ${pet.breed}?`]), ["pet"], petName);
  ask("single", `What's my ${siblingRelation}'s name?`, ["sibling"], sibling);
  ask("single", r.pick(["What car did we buy?", "Which car do we drive?"]), ["car"], car);
  ask("single", "Which language am I learning?", ["language"], language);
  ask("single", `What does ${friend} do for a living?`, ["friendJob"], friendJob);
  ask("single", `Which band did I see in concert?`, ["band"], band);
  ask(
    "single",
    r.pick(["Where do I live now?", "Which city am I living in these days?"]),
    [at.move2 !== undefined ? "move2" : "move"],
    at.move2 !== undefined ? city3 : city2,
  );
  ask("single", r.pick(["Where do I work now?", "Who is my current employer?"]), ["job2"], employer2);
  ask("single", "What's my favourite food these days?", ["food2"], food2);
  ask("single", `How long was the race I ran?`, ["race"], race.distance);
  ask("single", `What was the highlight of my trip to ${trip1.place}?`, ["trip1"], trip1.thing);
  // multi-hop across sessions
  ask(
    "multihop",
    `What's the name of my ${siblingRelation}'s ${siblingRelation === "sister" ? "husband" : "wife"}?`,
    ["sibling", "siblingPartner"],
    siblingPartner,
  );
  ask(
    "multihop",
    `Which city did I live in when we adopted ${petName}?`,
    [cityAt(at.pet).key, "pet"].filter(unique),
    cityAt(at.pet).city,
  );
  ask(
    "multihop",
    `Where was I working when I went to ${trip1.place}?`,
    [jobAt(at.trip1).key, "trip1"],
    jobAt(at.trip1).employer,
  );
  ask(
    "multihop",
    `Did we buy the ${car} before or after moving to ${city2}?`,
    ["car", "move"],
    at.car < at.move ? "before" : "after",
  );
  ask("multihop", `Which did I take up first, ${hobby1.name} or ${hobby2.name}?`, ["hobby1", "hobby2"], hobby1.name);
  ask(
    "multihop",
    `What does my ${siblingRelation}'s ${siblingRelation === "sister" ? "husband" : "wife"} do for work?`,
    ["sibling", "siblingPartner"],
    siblingPartnerJob,
  );
  // temporal
  ask("temporal", `When did we adopt ${petName}?`, ["pet"], isoDate(Date.parse(dateOf("pet"))));
  ask("temporal", `When did we move to ${city2}?`, ["move"], isoDate(Date.parse(dateOf("move"))));
  ask("temporal", `When did I start at ${employer2}?`, ["job2"], isoDate(Date.parse(dateOf("job2"))));
  ask("temporal", `When did I go to the ${band} concert?`, ["band"], isoDate(Date.parse(dateOf("band"))));
  ask("temporal", `Where did I travel in ${monthOf("trip2")}?`, ["trip2"], trip2.place);
  ask("temporal", `Where was I living in ${monthOf("sibling")}?`, [cityAt(at.sibling).key], cityAt(at.sibling).city);
  ask("temporal", `What was my favourite food back in ${monthOf("food1")}?`, ["food1"], food1);
  ask("temporal", `When did I take up ${hobby2.name}?`, ["hobby2"], isoDate(Date.parse(dateOf("hobby2"))));
  // open-domain: the evidence never shares the question's words
  ask(
    "open",
    "What would be a good birthday present for me?",
    ["hobby1", "hobby2"],
    `something for ${hobby1.gift} or ${hobby2.gift}`,
  );
  ask("open", "Am I more of a cat person or a dog person?", ["pet"], pet.species);
  ask("open", `What kind of music do I enjoy?`, ["band"], genres[band]);
  ask(
    "open",
    "Could I get around on holiday without a translator in a country that speaks my new language?",
    ["language"],
    language,
  );
  ask("open", "Do I have any family I could visit?", ["sibling"], sibling);
  ask("open", "What should I cook myself for dinner tonight?", ["food2"], food2);
  ask("open", "Am I fit enough to join a running club?", ["race"], `yes: ran a ${race.name}`);

  for (const q of questions)
    if (q.evidence.some((e) => !e))
      throw new Error(`question ${q.id} has an evidence turn that was never said (${q.text})`);
  return { id: `c${String(index + 1).padStart(2, "0")}`, user: name, sessions, questions };
}

function unique(value, index, all) {
  return all.indexOf(value) === index;
}
